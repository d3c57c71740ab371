// Fills on the GPU (kernels/cuda/fill_kernels.cu), the CUDA entries of FillKernels.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ember::cuda {

// n elements of itemsize bytes at device memory `out` set to the host bytes at `value`.
void fill(void* out, int64_t n, size_t itemsize, const void* value);

}  // namespace ember::cuda
