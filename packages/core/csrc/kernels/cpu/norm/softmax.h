// softmax / log_softmax kernels (CPU): the entries of the backend table's SoftmaxKernels.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace ember::softmax {

// y = softmax (log: log_softmax) of x along the middle dim of the contiguous (outer, size,
// inner) view both have; x, y floating, one dtype.
void forward(const Tensor& x, const Tensor& y, int64_t outer, int64_t size, int64_t inner, bool log);
// dx from y (the forward's result) and grad, all contiguous with y's dtype.
void backward(const Tensor& y, const Tensor& grad, const Tensor& dx, int64_t outer, int64_t size, int64_t inner,
              bool log);

}  // namespace ember::softmax
