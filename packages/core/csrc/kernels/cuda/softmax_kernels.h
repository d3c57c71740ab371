// SoftmaxKernels' CUDA entries (kernels/cuda/softmax_kernels.cu).
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace ember::cuda {

void softmax_forward(const Tensor& x, const Tensor& y, int64_t outer, int64_t size, int64_t inner, bool log);
void softmax_backward(const Tensor& y, const Tensor& grad, const Tensor& dx, int64_t outer, int64_t size, int64_t inner,
                      bool log);

}  // namespace ember::cuda
