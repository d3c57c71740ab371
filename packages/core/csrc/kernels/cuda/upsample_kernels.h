// UpsampleKernels' CUDA entry (kernels/cuda/upsample_kernels.cu): the CPU kernel's contract
// (kernels/cpu/pool/upsample.h) for the floating dtypes; uint8 raises.
#pragma once
#include <cstdint>

#include "core/scalar_type.h"
#include "kernels/upsample_geometry.h"

namespace ember::cuda {

void upsample(const upsample::Geometry& g, ScalarType dt, int64_t planes, char* x, char* y, bool backward,
              const upsample::ClForm& cl);

}  // namespace ember::cuda
