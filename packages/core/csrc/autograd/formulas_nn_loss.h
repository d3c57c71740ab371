// Derivative helpers of the fused losses (ops/nn_loss.yaml).
#pragma once
#include <cstdint>

#include "../core/tensor.h"

namespace ember {

// d(nll_loss_backward)/d(grad_output) applied to gg: nll_loss_backward is linear in its
// grad_output, and its adjoint is nll_loss_forward itself (output 0).
Tensor nll_loss_grad_of_grad(const Tensor& gg, const Tensor& target, const Tensor& weight, int64_t reduction,
                             int64_t ignore_index);

// d(mse_loss_backward)/d(self) applied to gg: gg * grad_output * 2 (/ numel for the mean).
Tensor mse_loss_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self, int64_t reduction);

// d(smooth_l1_loss_backward)/d(self) applied to gg: gg * grad_output / beta where |self - target| <
// beta (the quadratic zone), else 0; / numel for the mean. All 0 for beta 0 (aten's special case).
Tensor smooth_l1_loss_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self,
                                      const Tensor& target, int64_t reduction, double beta);
// The same for huber_loss_backward: gg * grad_output inside |self - target| < delta.
Tensor huber_loss_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                  int64_t reduction, double delta);

}  // namespace ember
