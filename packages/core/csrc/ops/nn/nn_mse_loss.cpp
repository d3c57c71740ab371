// mse_loss / mse_loss_backward as aten computes them: the squared difference elementwise, then
// aten's loss reduction (0 none, 1 mean, 2 sum) through the mean/sum ops (their events nest in
// mse_loss's, as in PyTorch's trace). ember.nn.functional.mse_loss checks dtypes and broadcasts
// self and target first, as F.mse_loss does.
#include "core/error.h"
#include "core/profiler_op.h"
#include "iter/elementwise_iter.h"
#include "ops.h"

namespace ember {

namespace {
const Scalar kOne(int64_t(1));

// self - target as aten's kernel computes it: in the common dtype, where a bool operand is a
// number (ember's sub refuses bool); two bools subtract as int64 (the dtype check follows).
Tensor difference(const Tensor& self, const Tensor& target) {
  if (self.dtype() != ScalarType::Bool && target.dtype() != ScalarType::Bool) return sub(self, target, kOne);
  ScalarType dt = promote_types(self.dtype(), target.dtype());
  if (dt == ScalarType::Bool) dt = ScalarType::Int64;
  return sub(self.dtype() == dt ? self : _to_copy(self, dt), target.dtype() == dt ? target : _to_copy(target, dt),
             kOne);
}

// A reduced loss's squared differences: aten's iterator allocates their buffer with at::empty (an op
// event in PyTorch's trace) where its operands are contiguous and of one shape; ember's sub writes
// into it. Elsewhere (a broadcast, another layout, a bool operand) sub allocates it.
Tensor unreduced(const Tensor& self, const Tensor& target) {
  if (!self.sizes().equals(target.sizes()) || !self.is_contiguous() || !target.is_contiguous() ||
      self.dtype() == ScalarType::Bool || target.dtype() == ScalarType::Bool)
    return difference(self, target);
  const ScalarType dt = promote_types(self.dtype(), target.dtype());
  Tensor loss =
      profiler::nested_op("aten::empty", {nullptr, nullptr}, [&] { return empty(self.sizes(), dt, self.device()); });
  return sub_out(self, target, kOne, loss);
}

// aten's gradient scale: 2 / numel for the mean, 2 otherwise.
double mse_norm(const Tensor& self, int64_t reduction) {
  return reduction == 1 ? 2.0 / static_cast<double>(self.numel()) : 2.0;
}
}  // namespace

Tensor nn_mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  // the broadcast's shape check first, then aten's dtype dispatch
  Tensor loss = reduction == 0 ? difference(self, target) : unreduced(self, target);
  const ScalarType dt = promote_types(self.dtype(), target.dtype());
  EMBER_CHECK(reduction >= 0 && reduction <= 2, "mse_loss(): reduction must be 0 (none), 1 (mean) or 2 (sum), got ",
              reduction);
  EMBER_CHECK_NOTIMPL(is_floating(dt), "\"mse_cpu\" not implemented for '", legacy_name(dt), "'");
  mul_(loss, loss);
  if (reduction == 1)
    return profiler::nested_op("aten::mean", {&loss, nullptr}, [&] { return mean(loss, std::nullopt); });
  if (reduction == 2)
    return profiler::nested_op("aten::sum", {&loss, nullptr}, [&] { return sum(loss, std::nullopt); });
  return loss;
}

// norm * (self - target) * grad_output, in that order (aten's kernel); grad_output is 0-d for a
// reduced loss and the loss's shape for reduction none.
Tensor nn_mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  // out of place: the three operands broadcast together (aten's iterator resizes its output)
  const ScalarType dt = result_type({&grad_output, &self, &target});
  if (dt == ScalarType::Bool || is_complex(dt)) {
    // no kernel: the operands' shapes are checked first (the iterator), then the cast to self's
    // dtype, then the dispatch
    (void)mul(difference(self, target), grad_output);
    check_cast(dt, self.dtype());
    dtype_not_implemented("mse_backward_cpu_out", dt);
  }
  // The iterator computes in the three operands' result type (a 0-d self and target give way to a
  // dimensioned float16 grad; integers stay integers), rounding after each step; the scale is a
  // value of that type too (2 / numel truncates to 0 for an integer mean).
  auto as_dt = [&](const Tensor& t) { return t.dtype() == dt ? t : _to_copy(t, dt); };
  Tensor norm = _to_copy(wrap_scalar(Scalar(mse_norm(self, reduction))), dt);
  const Tensor* ops[] = {&grad_output, &self, &target};
  DimVector shape = to_vec(self.sizes());
  for (const Tensor* t : ops)
    if (!t->sizes().equals(shape)) shape = broadcast_shapes(shape, t->sizes());
  if (dt == self.dtype() && self.sizes().equals(shape)) {
    // As aten: a zeros_like(self) result that mse_loss_backward's out= overload writes (nested op
    // events, as in PyTorch's trace), here in three passes over it: one allocation, not three.
    Tensor r = profiler::nested_op("aten::zeros_like", {&self, nullptr}, [&] {
      return zeros_like(self, std::nullopt, std::nullopt, MemoryFormat::Contiguous);
    });
    return profiler::nested_op("aten::mse_loss_backward", {&grad_output, &self, &target, nullptr, &r}, [&] {
      sub_out(self, as_dt(target), kOne, r);
      mul_(r, norm);
      return mul_(r, as_dt(grad_output));
    });
  }
  Tensor g = mul(mul(sub(as_dt(self), as_dt(target), kOne), norm), as_dt(grad_output));
  // aten writes into empty_like(self): the gradient has self's dtype whatever the others promote to,
  // if the promoted result may be cast to it
  check_cast(g.dtype(), self.dtype());
  return g.dtype() == self.dtype() ? g : _to_copy(g, self.dtype());
}

}  // namespace ember
