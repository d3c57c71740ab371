// argmax / argmin (max.dim / min.dim) on the GPU (kernels/cuda/arg_reduce_kernels.cu), the CUDA
// entry of ReduceKernels.arg_reduce.
#pragma once
#include "core/tensor.h"

namespace ember::cuda {

void arg_reduce(const Tensor& in, const Tensor& values, const Tensor& indices, bool is_max);

}  // namespace ember::cuda
