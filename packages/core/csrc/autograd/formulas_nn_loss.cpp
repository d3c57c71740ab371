#include "formulas_nn_loss.h"

#include "autograd_ops.h"

namespace ember {

Tensor nll_loss_grad_of_grad(const Tensor& gg, const Tensor& target, const Tensor& weight, int64_t reduction,
                             int64_t ignore_index) {
  return std::get<0>(ag::nn_nll_loss_forward(gg, target, weight, reduction, ignore_index));
}

}  // namespace ember
