// Ranges and eye on the GPU (kernels/cuda/sequence_kernels.cu), the CUDA entries of FillKernels
// beside fill (kernels/cuda/fill_kernels.h); `out` is device memory.
#pragma once
#include <cstdint>

#include "core/scalar_type.h"

namespace ember::cuda {

void arange(ScalarType dt, void* out, int64_t n, double start, double step, int64_t istart, int64_t istep);
void linspace(ScalarType dt, void* out, int64_t steps, double start, double end, double diff, double base, bool log);
void eye(ScalarType dt, void* out, int64_t n, int64_t m);

}  // namespace ember::cuda
