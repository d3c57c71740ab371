// The shape ops' copies on the GPU (kernels/cuda/shape_kernels.cu), the CUDA entries of ShapeKernels.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace ember::cuda {

void strided_gather(const Tensor& out, const char* src, IntArrayRef sizes, IntArrayRef byte_strides);
void triangle(const Tensor& t, int64_t k, bool lower);
void triangle_strided(const Tensor& t, int64_t k, bool lower);
void cat_block(const Tensor& dst, const Tensor& src, int64_t dim, int64_t offset);
// reflection / replication padding and its backward (kernels/cuda/pad_kernels.cu)
void pad(const Tensor& in, const Tensor& out, IntArrayRef before, bool reflect, bool backward);

}  // namespace ember::cuda
