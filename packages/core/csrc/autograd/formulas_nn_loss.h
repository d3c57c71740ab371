// Derivative helpers of the fused losses (ops/nn_loss.yaml).
#pragma once
#include <cstdint>

#include "../core/tensor.h"

namespace ember {

// d(nll_loss_backward)/d(grad_output) applied to gg: nll_loss_backward is linear in its
// grad_output, and its adjoint is nll_loss_forward itself (output 0).
Tensor nll_loss_grad_of_grad(const Tensor& gg, const Tensor& target, const Tensor& weight, int64_t reduction,
                             int64_t ignore_index);

}  // namespace ember
