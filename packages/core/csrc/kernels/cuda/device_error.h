// Bad values a kernel finds (an nll_loss target, an embedding index out of range): the kernel writes them to its
// device's error record, mapped pinned memory, so the op queues its work and returns without
// waiting for the device; the host raises the error, as the op's own Python exception, at the next
// call that waits for the device (a copy to the host, a synchronize, an event or stream wait) --
// where PyTorch's device-side asserts surface too, but with the message the CPU op gives and a
// device that stays usable.
#pragma once
#include <cstdint>

#include "kernels/device_error_code.h"

namespace ember::cuda {

struct DeviceErrorRecord {
  int64_t value;      // the offending value
  int64_t dim, size;  // where it indexed (kIndexOutOfBounds)
  int32_t code;       // a DeviceErrorCode, written last
  int32_t pad;
};

// The record kernels on `device` write (a device pointer to mapped host memory).
DeviceErrorRecord* device_error_record(int device);
// Raises, and clears, what kernels have recorded on any device; called once the device is waited for.
void raise_device_errors();

}  // namespace ember::cuda
