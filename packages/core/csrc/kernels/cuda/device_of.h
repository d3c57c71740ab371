// The device a pointer's memory lives on, for the backend entries that receive raw pointers
// (GemmKernels, LossKernels): cudaPointerGetAttributes, with ember's error for host memory.
#pragma once
#include <cuda_runtime.h>

#include "core/error.h"

namespace ember::cuda {

inline int device_of(const void* p, const char* what) {
  cudaPointerAttributes attr{};
  const bool ok = cudaPointerGetAttributes(&attr, p) == cudaSuccess && attr.type == cudaMemoryTypeDevice;
  EMBER_CHECK(ok, "CUDA error: ", what, "'s operand is not device memory");
  return attr.device;
}

}  // namespace ember::cuda
