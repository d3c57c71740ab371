// grid_sample's backward pass (ops/nn/nn_grid_sample.cpp), for the derivative formulas.
#pragma once
#include <tuple>

#include "core/tensor.h"

namespace ember {

// The input and grid gradients of grid_sampler_2d / _3d (the input's rank says which); a gradient
// not asked for is an undefined tensor.
std::tuple<Tensor, Tensor> grid_sampler_backward_nd(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                    int64_t mode, int64_t padding, bool align_corners, bool input_grad,
                                                    bool grid_grad);

}  // namespace ember
