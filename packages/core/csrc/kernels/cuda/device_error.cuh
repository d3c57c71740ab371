// The device side of kernels/cuda/device_error.h: a kernel's report of a bad value. Plain stores
// (no system-scope atomics, which a PCIe host may not offer): when several threads report, one
// whole (value, code) pair or a mix of two reports' values is read, each of them a bad value.
#pragma once
#include <cuda_runtime.h>

#include "kernels/cuda/device_error.h"

namespace ember::cuda {

__device__ inline void report_device_error(DeviceErrorRecord* r, DeviceErrorCode code, int64_t value) {
  volatile DeviceErrorRecord* v = r;
  v->value = value;
  __threadfence_system();  // the value is seen before the code that announces it
  v->code = code;
}

}  // namespace ember::cuda
