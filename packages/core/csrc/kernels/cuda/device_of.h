// Which device a backend entry runs on: the device a pointer's memory lives on, for the entries
// that receive raw pointers (GemmKernels, LossKernels), and the guard that makes a device current.
#pragma once
#include <cuda_runtime.h>

#include "core/error.h"
#include "kernels/cuda/cuda_runtime_api.h"
#include "kernels/cuda/stream.h"

namespace ember::cuda {

// A failed runtime call as ember's RuntimeError, the sticky error cleared for the next call.
[[noreturn]] inline void cuda_fail(cudaError_t e, const char* what) {
  cudaGetLastError();
  fail(ErrorKind::Runtime, "CUDA error: ", cudaGetErrorString(e), " (", what, ")");
}
inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) cuda_fail(e, what);
}
// A stream or event query's answer: done, or not yet (cudaErrorNotReady, cleared); anything else raises.
inline bool query_done(cudaError_t e, const char* what) {
  if (e == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  check_cuda(e, what);
  return true;
}

// The device of an operand's memory: with one device, that one (no driver query per call, which
// costs about a launch's time); else the pointer's attributes, which also catch host memory.
inline int device_of(const void* p, const char* what) {
  if (cuda_device_count() == 1) return 0;
  cudaPointerAttributes attr{};
  const bool ok = cudaPointerGetAttributes(&attr, p) == cudaSuccess && attr.type == cudaMemoryTypeDevice;
  EMBER_CHECK(ok, "CUDA error: ", what, "'s operand is not device memory");
  return attr.device;
}

// Makes a device current for a launch (or a cuBLAS call) and restores the caller's after it.
class LaunchDevice {
 public:
  explicit LaunchDevice(int index) {
    EMBER_CHECK(cudaGetDevice(&prev_) == cudaSuccess, "CUDA error: cannot read the current device");
    if (index >= 0 && index != prev_) {
      EMBER_CHECK(cudaSetDevice(index) == cudaSuccess, "CUDA error: cudaSetDevice");
      switched_ = true;
    }
  }
  ~LaunchDevice() {
    if (switched_) cudaSetDevice(prev_);  // the common case (already current) costs one query
  }
  LaunchDevice(const LaunchDevice&) = delete;
  LaunchDevice& operator=(const LaunchDevice&) = delete;

 private:
  int prev_ = 0;
  bool switched_ = false;
};

}  // namespace ember::cuda
