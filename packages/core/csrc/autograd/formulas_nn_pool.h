// Derivative helpers for the pooling / upsampling ops (ops/nn_pool.yaml), built from ag:: ops.
#pragma once
#include "../core/tensor.h"

namespace ember {

// Max pooling (windowed or adaptive): scatter-add grad into self's shape at the per-plane
// flat `indices` over the last n dims (double backward: gather, via ag::scatter_add).
Tensor max_pool_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t n);
// Max unpooling: gather grad at `indices` per plane.
Tensor max_unpool_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t n);
// adaptive_avg_pool backward's own derivative: the forward op to grad_output's spatial size.
Tensor adaptive_avg_pool_double_backward(const Tensor& grad, IntArrayRef grad_output_sizes, int64_t n);
// grid_sampler_2d / _3d: the gradient of input (which = 0) or grid (which = 1). Its own derivative
// (PyTorch's GridSampler2DBackwardBackward0) is not ported: backward through it raises.
Tensor grid_sampler_grad(const Tensor& grad, const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                         int64_t padding_mode, bool align_corners, int64_t which);
// The (zero) derivative of a backward op with respect to its `self` argument.
Tensor zeros_like_self(const Tensor& self);

}  // namespace ember
