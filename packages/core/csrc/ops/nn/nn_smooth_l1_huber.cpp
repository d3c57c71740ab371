// smooth_l1_loss / huber_loss and their backwards as aten computes them (ops/nn_loss.yaml): one
// pointwise kernel (kernels/cpu/pointwise/loss_ops.h) and aten's loss reduction (0 none, 1 mean,
// 2 sum). ember.nn.functional's losses broadcast their operands and check beta / delta first,
// as F's do; called directly, these ops broadcast too.
#include <cmath>
#include <limits>
#include <string_view>

#include "core/error.h"
#include "ops.h"
#include "ops/core/internal.h"
#include "ops/core/pointwise_run.h"

namespace ember {

namespace {

Tensor reduce_loss(const Tensor& loss, int64_t reduction) {
  const std::nullopt_t all = std::nullopt;
  if (reduction == 1) return mean(loss, all, false, all);
  if (reduction == 2) return sum(loss, all, false, all);
  return loss;
}

// beta / delta / norm as the kernel's op-math type holds them for operands of dtype `dt` (float below
// float64; the bodies round them further where aten holds them in a half type): a value that float
// rounds to inf is inf, not the checked conversion's overflow error.
Scalar held_as(double v, ScalarType dt) {
  if (dt != ScalarType::Float64 && std::fabs(v) >= 0x1.ffffffp127)  // float's max plus half its last step
    return Scalar(std::copysign(std::numeric_limits<double>::infinity(), v));
  return Scalar(v);
}
// A dtype the float kernels have no entry for: aten's dispatch error, named as its kernel.
void float_only(const char* kernel, ScalarType dt) {
  if (!is_floating(dt) || is_complex(dt)) dtype_not_implemented(kernel, dt);
}

// The backwards' gradient: zeros_like(self) in aten (contiguous, self's dtype), resized to the
// three operands' broadcast shape.
Tensor grad_like_self(const Tensor& grad_output, const Tensor& self, const Tensor& target) {
  DimVector shape = broadcast_shapes(broadcast_shapes(self.sizes(), target.sizes()), grad_output.sizes());
  return empty(shape, self.dtype(), self.device());
}

double loss_norm(const Tensor& self, int64_t reduction) {
  return reduction == 1 ? 1.0 / static_cast<double>(self.numel()) : 1.0;
}

// smooth_l1's backward for integer operands (aten dispatches it over every type but bool):
// the same slopes in integer arithmetic, beta and norm truncated to the dtype. ember composes it
// from its integer ops, which wrap rather than overflow; a beta truncating to 0 is refused where
// aten's kernel divides by zero.
Tensor smooth_l1_backward_integral(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                   int64_t reduction, double beta, ScalarType dt) {
  const Scalar n(loss_norm(self, reduction));  // checked as aten's norm.to<scalar_t>(): 1 / 0 overflows
  EMBER_DISPATCH_EVERY_TYPE(dt, "smooth_l1_backward_cpu_out", [&] { (void)n.checked<scalar_t>(); });
  const Tensor norm = to_dtype(wrap_scalar(n), dt), b = to_dtype(wrap_scalar(Scalar(beta)), dt);
  EMBER_CHECK(b.item().to_double() != 0, "smooth_l1_loss_backward(): beta ", beta, " truncates to 0 in the ",
              legacy_name(dt), " operands' dtype, and the slope d / beta would divide by zero");
  auto as_dt = [&](const Tensor& t) { return t.dtype() == dt ? t : to_dtype(t, dt); };
  const Tensor d = sub(as_dt(self), as_dt(target), Scalar(int64_t(1)));
  const Tensor one = to_dtype(wrap_scalar(Scalar(int64_t(1))), dt);
  const Tensor sign = where(gt(d, zeros_like(one)), one, neg(one));
  const Tensor slope = where(ge(abs(d), b), sign, div(d, b, std::string_view("trunc")));
  const Tensor g = mul(mul(norm, slope), as_dt(grad_output));
  return g.dtype() == self.dtype() ? g : to_dtype(g, self.dtype());
}

}  // namespace

Tensor nn_smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  // aten's order: beta, the operands' shapes and dtypes, the reduction, then the kernel's dtypes
  EMBER_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  (void)broadcast_shapes(self.sizes(), target.sizes());
  const ScalarType dt = result_type({&self, &target});
  EMBER_CHECK(reduction >= 0 && reduction <= 2,
              "smooth_l1_loss(): reduction must be 0 (none), 1 (mean) or 2 (sum), got ", reduction);
  float_only("smooth_l1_cpu", dt);
  const Tensor loss = run_pointwise("smooth_l1_loss", EMBER_KERNEL(smooth_l1), DtypeRule::Promote, Tensor(), false,
                                    {&self, &target}, {held_as(beta, dt)});
  return reduce_loss(loss, reduction);
}

Tensor nn_smooth_l1_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                  int64_t reduction, double beta) {
  // aten's iterator: the common dtype of the three, cast into self's (a safe cast only)
  const ScalarType dt = result_type({&self, &target, &grad_output});
  Tensor out = grad_like_self(grad_output, self, target);
  check_cast(dt, self.dtype());
  if (dt == ScalarType::Bool || is_complex(dt)) dtype_not_implemented("smooth_l1_backward_cpu_out", dt);
  if (!is_floating(dt)) return smooth_l1_backward_integral(grad_output, self, target, reduction, beta, dt);
  return run_pointwise("smooth_l1_loss_backward", EMBER_KERNEL(smooth_l1_backward), DtypeRule::Promote, out, false,
                       {&self, &target, &grad_output}, {held_as(loss_norm(self, reduction), dt), held_as(beta, dt)});
}

Tensor nn_huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  EMBER_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  // aten writes into empty_like(self) (self's dtype and layout), resized to the broadcast shape
  const DimVector shape = broadcast_shapes(self.sizes(), target.sizes());
  Tensor out = self.sizes().equals(shape) ? empty_with_layout_of(self, self.dtype(), std::nullopt)
                                          : empty(shape, self.dtype(), self.device());
  const ScalarType dt = result_type({&self, &target});
  check_cast(dt, self.dtype());
  float_only("huber_cpu", dt);
  run_pointwise("huber_loss", EMBER_KERNEL(huber), DtypeRule::Promote, out, false, {&self, &target},
                {held_as(delta, dt)});
  return reduce_loss(out, reduction);  // any other reduction is none (aten's apply_loss_reduction)
}

Tensor nn_huber_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction,
                              double delta) {
  // aten's default iterator: the shapes, then every operand of the gradient's (self's) dtype
  Tensor out = grad_like_self(grad_output, self, target);
  same_dtype_as_self(self, {&target, &grad_output});
  float_only("huber_backward_cpu_out", self.dtype());
  return run_pointwise("huber_loss_backward", EMBER_KERNEL(huber_backward), DtypeRule::Promote, out, false,
                       {&self, &target, &grad_output},
                       {held_as(loss_norm(self, reduction), self.dtype()), held_as(delta, self.dtype())});
}

}  // namespace ember
