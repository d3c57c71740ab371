#include "formulas_nn_loss.h"

#include "autograd_ops.h"
#include "iter/elementwise_iter.h"
#include "ops.h"

namespace ember {

Tensor nll_loss_grad_of_grad(const Tensor& gg, const Tensor& target, const Tensor& weight, int64_t reduction,
                             int64_t ignore_index) {
  return std::get<0>(ag::nn_nll_loss_forward(gg, target, weight, reduction, ignore_index));
}

Tensor mse_loss_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self, int64_t reduction) {
  const double norm = reduction == 1 ? 2.0 / static_cast<double>(self.numel()) : 2.0;
  return ag::mul(ag::mul(gg, grad_output), wrap_scalar(Scalar(norm)));
}

namespace {
// [|self - target| < bound] in g's dtype: the quadratic zone, where the slope is the difference's
// (a mask: no gradient flows through it).
Tensor quadratic_zone(const Tensor& g, const Tensor& self, const Tensor& target, double bound) {
  return to_dtype(lt(abs(sub(self, target, Scalar(int64_t(1)))), wrap_scalar(Scalar(bound))), g.dtype());
}
Tensor per_numel(const Tensor& t, const Tensor& self, int64_t reduction) {
  return reduction == 1 ? ag::div(t, wrap_scalar(Scalar(static_cast<double>(self.numel())))) : t;
}
}  // namespace

Tensor smooth_l1_loss_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self,
                                      const Tensor& target, int64_t reduction, double beta) {
  const Tensor g = ag::mul(gg, grad_output);
  if (beta == 0) return zeros_like(g);
  const Tensor inside = ag::mul(g, quadratic_zone(g, self, target, beta));
  return per_numel(ag::div(inside, wrap_scalar(Scalar(beta))), self, reduction);
}

Tensor huber_loss_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                  int64_t reduction, double delta) {
  const Tensor g = ag::mul(gg, grad_output);
  return per_numel(ag::mul(g, quadratic_zone(g, self, target, delta)), self, reduction);
}

}  // namespace ember
