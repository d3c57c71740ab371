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

}  // namespace ember
