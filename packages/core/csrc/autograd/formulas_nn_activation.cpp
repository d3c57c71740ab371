#include "formulas_nn_activation.h"

#include <cmath>

#include "autograd_ops.h"
#include "formulas.h"
#include "ops.h"

namespace ember {

namespace {
Tensor num(double v) { return wrap_scalar(Scalar(v)); }
const Scalar kOne(int64_t(1));
}  // namespace

Tensor gelu_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate) {
  Tensor x2 = ag::square(self);
  Tensor d2;
  if (approximate == "tanh") {
    // f = x/2 (1 + t), t = tanh(u), u = k (x + c x^3):
    // f'' = (1 - t^2) (u' - x t u'^2 + x u''/2), u' = k (1 + 3 c x^2), x u''/2 = 3 k c x^2.
    const double k = M_SQRT2 * M_2_SQRTPI * 0.5, c = 0.044715;
    Tensor t = ag::tanh(scale(ag::add(self, scale(ag::mul(x2, self), c), kOne), k));
    Tensor du = scale(add_s(scale(x2, 3.0 * c), 1.0), k);
    Tensor inner = ag::add(ag::sub(du, ag::mul(ag::mul(self, t), ag::square(du)), kOne), scale(x2, 3.0 * k * c), kOne);
    d2 = ag::mul(one_minus(ag::square(t)), inner);
  } else {
    // f = x Phi(x): f'' = phi(x) (2 - x^2), phi(x) = e^{-x^2/2} / sqrt(2 pi).
    Tensor pdf = scale(ag::exp(scale(x2, -0.5)), M_2_SQRTPI * M_SQRT1_2 * 0.5);
    d2 = ag::mul(pdf, ag::rsub(x2, num(2.0), kOne));
  }
  return ag::mul(ag::mul(gg, grad_output), d2);
}

Tensor glu_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim()), h = self.size(d) / 2;
  Tensor a = ag::narrow(self, d, 0, h), s = ag::sigmoid(ag::narrow(self, d, h, h));
  Tensor ds = ag::mul(s, one_minus(s));  // sigmoid'(b)
  Tensor gg_b_g = ag::mul(ag::narrow(gg, d, h, h), grad_output);
  Tensor grad_a = ag::mul(gg_b_g, ds);
  Tensor grad_b = ag::add(ag::mul(ag::mul(ag::mul(gg_b_g, a), ds), one_minus(scale(s, 2.0))),
                          ag::mul(ag::mul(grad_output, ag::narrow(gg, d, 0, h)), ds), kOne);
  return ag::cat(TensorList{grad_a, grad_b}, d);
}

Tensor glu_double_backward_grad_output(const Tensor& gg, const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim()), h = self.size(d) / 2;
  DimVector half(self.sizes().begin(), self.sizes().end());
  half[static_cast<size_t>(d)] = h;
  Tensor t = ag::mul(gg, ag::glu_backward(ones(half, self.dtype(), self.device()), self, dim));
  return ag::add(ag::narrow(t, d, 0, h), ag::narrow(t, d, h, h), kOne);
}

Tensor softplus_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self, const Scalar& beta,
                                const Scalar& threshold) {
  Tensor x = ag::mul(self, wrap_scalar(beta));
  Tensor s = ag::sigmoid(x);
  Tensor below = lt(x, wrap_scalar(threshold));  // a mask, not differentiated
  Tensor d2 = ag::mul(ag::mul(s, one_minus(s)), wrap_scalar(beta));
  return ag::mul(ag::mul(ag::mul(gg, grad_output), d2), below);
}

Tensor silu_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self) {
  // d/dx [s (1 + x (1 - s))] = s (1 - s) (2 + x (1 - 2 s)), s = sigmoid(x)
  Tensor s = ag::sigmoid(self);
  Tensor d2 = ag::mul(ag::mul(s, one_minus(s)), add_s(ag::mul(self, one_minus(scale(s, 2.0))), 2.0));
  return ag::mul(ag::mul(gg, grad_output), d2);
}

Tensor hardswish_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self) {
  // aten's where(-3 < self < 3, gg * grad_output / 3, 0): the slope x / 3 + 1/2 differentiates to 1/3
  Tensor inside = logical_and(gt(self, num(-3.0)), lt(self, num(3.0)));
  return ag::where(inside, scale(ag::mul(gg, grad_output), 1.0 / 3.0), zeros_like_grad(gg));
}

Tensor elu_double_backward(const Tensor& gg, const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result) {
  Tensor below = lt(self_or_result, num(0.0));  // a mask, not differentiated
  Tensor g = ag::mul(ag::mul(gg, grad_output), wrap_scalar(input_scale));
  if (is_result) return ag::mul(g, below);
  return ag::mul(ag::elu_backward(g, alpha, scale, input_scale, false, self_or_result), below);
}

Tensor log_sigmoid_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self) {
  Tensor s = ag::sigmoid(self);
  return ag::mul(ag::mul(ag::mul(gg, grad_output), add_s(s, -1.0)), s);
}

Scalar celu_grad_input_scale(const Scalar& alpha) { return Scalar(1.0 / static_cast<double>(alpha.checked<float>())); }

namespace {
// x >= 0 ? 0 : v (the negative side's term of a prelu gradient), differentiable in v; x = 0 counts as
// the positive side here, as in PyTorch's formulas (the kernels put it on the negative side)
Tensor negative_side(const Tensor& self, const Tensor& v) {
  return ag::where(ge(self, num(0.0)), zeros_like(v, std::nullopt, std::nullopt, std::nullopt), v);
}
}  // namespace

Tensor prelu_backward_grad_output(const TensorList& grads, const Tensor& grad_output, const Tensor& self,
                                  const Tensor& weight) {
  const Tensor& gi = grads[0];
  const Tensor& gw = grads.size() > 1 ? grads[1] : Tensor();
  if (!gi.defined() && !gw.defined()) return zeros_like(grad_output, std::nullopt, std::nullopt, std::nullopt);
  Tensor neg;  // the x <= 0 side: gi w + gw x
  if (gi.defined()) neg = ag::mul(gi, weight);
  if (gw.defined()) neg = neg.defined() ? ag::add(neg, ag::mul(gw, self), kOne) : ag::mul(gw, self);
  const Tensor pos = gi.defined() ? gi : zeros_like(neg, std::nullopt, std::nullopt, std::nullopt);
  return ag::where(ge(self, num(0.0)), pos, neg);
}

Tensor prelu_backward_self(const TensorList& grads, const Tensor& grad_output, const Tensor& self) {
  if (grads.size() < 2 || !grads[1].defined()) return zeros_like(self, std::nullopt, std::nullopt, std::nullopt);
  return negative_side(self, ag::mul(grad_output, grads[1]));
}

Tensor prelu_backward_weight(const TensorList& grads, const Tensor& grad_output, const Tensor& self) {
  if (!grads[0].defined()) return zeros_like(self, std::nullopt, std::nullopt, std::nullopt);
  return negative_side(self, ag::mul(grad_output, grads[0]));
}

}  // namespace ember
