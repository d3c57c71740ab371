#include "formulas_nn_loss.h"

#include "autograd_ops.h"

namespace ember {

Tensor nll_loss_grad_of_grad(const Tensor& gg, const Tensor& target, const Tensor& weight, int64_t reduction,
                             int64_t ignore_index) {
  return std::get<0>(ag::nn_nll_loss_forward(gg, target, weight, reduction, ignore_index));
}

Tensor mse_loss_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self, int64_t reduction) {
  const double norm = reduction == 1 ? 2.0 / static_cast<double>(self.numel()) : 2.0;
  return ag::mul(ag::mul(gg, grad_output), wrap_scalar(Scalar(norm)));
}

}  // namespace ember
