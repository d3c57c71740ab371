// The device side of kernels/cuda/device_error.h: a kernel's report of a bad value. Plain stores
// (no system-scope atomics, which a PCIe host may not offer), and only while the record holds no
// report (the first kernel's wins): threads of one kernel reporting together may mix their values,
// each of them a bad value of that kernel's dim.
#pragma once
#include <cuda_runtime.h>

#include "kernels/cuda/device_error.h"

namespace ember::cuda {

__device__ inline void report_device_error(DeviceErrorRecord* r, DeviceErrorCode code, int64_t value, int64_t dim = 0,
                                           int64_t size = 0) {
  volatile DeviceErrorRecord* v = r;
  if (v->code != kNoDeviceError) return;
  v->value = value;
  v->dim = dim;
  v->size = size;
  __threadfence_system();  // the value is seen before the code that announces it
  v->code = code;
}

}  // namespace ember::cuda
