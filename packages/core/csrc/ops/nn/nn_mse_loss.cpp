// mse_loss / mse_loss_backward as aten computes them: the squared difference elementwise, then
// aten's loss reduction (0 none, 1 mean, 2 sum) through the mean/sum ops (their events nest in
// mse_loss's, as in PyTorch's trace). ember.nn.functional.mse_loss checks dtypes and broadcasts
// self and target first, as F.mse_loss does.
#include <limits>

#include "core/error.h"
#include "core/profiler_op.h"
#include "iter/elementwise_iter.h"
#include "iter/resize_out.h"
#include "ops.h"
#include "ops/core/internal.h"
#include "ops/core/pointwise_run.h"

namespace ember {

namespace {
const Scalar kOne(int64_t(1));

// self - target as aten's kernel computes it: in the common dtype, where a bool operand is a
// number (ember's sub refuses bool); two bools subtract as int64 (the dtype check follows).
Tensor difference(const Tensor& self, const Tensor& target) {
  if (self.dtype() != ScalarType::Bool && target.dtype() != ScalarType::Bool) return sub(self, target, kOne);
  ScalarType dt = promote_types(self.dtype(), target.dtype());
  if (dt == ScalarType::Bool) dt = ScalarType::Int64;
  return sub(self.dtype() == dt ? self : to_dtype(self, dt), target.dtype() == dt ? target : to_dtype(target, dt),
             kOne);
}

// A reduced loss's squared differences: aten's iterator allocates their buffer (an op event in
// PyTorch's trace) where its operands are of one shape and layout: at::empty where that layout's
// dim order is the contiguous one, else empty_strided in its order (a transpose). ember's sub writes
// into it (or, for floats of one dtype, the squared differences at once: `squared`). Elsewhere (a
// broadcast, two layouts, a bool operand) sub allocates it.
Tensor unreduced(const Tensor& self, const Tensor& target, bool& squared) {
  if (!self.sizes().equals(target.sizes()) || !self.strides().equals(target.strides()) ||
      self.dtype() == ScalarType::Bool || target.dtype() == ScalarType::Bool)
    return difference(self, target);
  const ScalarType dt = promote_types(self.dtype(), target.dtype());
  bool in_order = true;  // the strides of the dims with more than one element never grow
  int64_t last = std::numeric_limits<int64_t>::max();
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.size(d) == 1) continue;
    in_order = in_order && self.stride(d) <= last;
    last = self.stride(d);
  }
  Tensor loss = profiler::nested_op(in_order ? "aten::empty" : "aten::empty_strided", {nullptr, nullptr}, [&] {
    return in_order ? empty(self.sizes(), dt, self.device()) : empty_with_layout_of(self, dt, std::nullopt);
  });
  if (is_floating(dt) && self.dtype() == dt && target.dtype() == dt) {  // the square in the same pass
    squared = true;
    return run_pointwise("mse_loss", EMBER_KERNEL(mse), DtypeRule::Promote, loss, false, {&self, &target});
  }
  return sub_out(self, target, kOne, loss);
}

// aten's gradient scale: 2 / numel for the mean, 2 otherwise.
double mse_norm(const Tensor& self, int64_t reduction) {
  return reduction == 1 ? 2.0 / static_cast<double>(self.numel()) : 2.0;
}
}  // namespace

Tensor nn_mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  const ScalarType dt = promote_types(self.dtype(), target.dtype());
  // aten's reduced loss is allocated in self's shape (its meta function: no event) and resize_d to
  // 0-d before the squared differences; the mean's / sum's out= overload writes it. ember returns
  // the reduction's own 0-d result, but takes aten's path while a profiler records, so the trace
  // shows the same calls.
  Tensor result;
  if ((reduction == 1 || reduction == 2) && profiler::active()) {
    result = empty(self.sizes(), dt, self.device());
    profiler::nested_op("aten::resize_", {&result, nullptr, nullptr}, [&] { return resize_out(result, {}, false); });
  }
  // the broadcast's shape check first, then aten's dtype dispatch
  bool squared = false;
  Tensor loss = reduction == 0 ? difference(self, target) : unreduced(self, target, squared);
  EMBER_CHECK(reduction >= 0 && reduction <= 2, "mse_loss(): reduction must be 0 (none), 1 (mean) or 2 (sum), got ",
              reduction);
  EMBER_CHECK_NOTIMPL(is_floating(dt), "\"mse_cpu\" not implemented for '", legacy_name(dt), "'");
  if (!squared) mul_(loss, loss);
  const std::nullopt_t all = std::nullopt;
  if (reduction == 1)
    return profiler::nested_op("aten::mean", {&loss, nullptr}, [&] {
      return result.defined() ? mean_out(loss, all, false, all, result) : mean(loss, all, false, all);
    });
  if (reduction == 2)
    return profiler::nested_op("aten::sum", {&loss, nullptr}, [&] {
      return result.defined() ? sum_out(loss, all, false, all, result) : sum(loss, all, false, all);
    });
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
  auto as_dt = [&](const Tensor& t) { return t.dtype() == dt ? t : to_dtype(t, dt); };
  auto norm = [&] { return to_dtype(wrap_scalar(Scalar(mse_norm(self, reduction))), dt); };
  const Tensor* ops[] = {&grad_output, &self, &target};
  DimVector shape = to_vec(self.sizes());
  for (const Tensor* t : ops)
    if (!t->sizes().equals(shape)) shape = broadcast_shapes(shape, t->sizes());
  if (dt == self.dtype() && self.sizes().equals(shape)) {
    // As aten: a zeros_like(self) result that mse_loss_backward's out= overload writes (nested op
    // events, as in PyTorch's trace; unprofiled, the zeros are not written), in one pass.
    Tensor r = profiler::nested_op("aten::zeros_like", {&self, nullptr}, [&] {
      return profiler::active() ? zeros_like(self, std::nullopt, std::nullopt, MemoryFormat::Contiguous)
                                : empty(self.sizes(), dt, self.device());
    });
    return profiler::nested_op("aten::mse_loss_backward", {&grad_output, &self, &target, nullptr, &r}, [&] {
      const Tensor t = as_dt(target), g = as_dt(grad_output);
      if (is_floating(dt))
        return run_pointwise("mse_loss_backward", EMBER_KERNEL(mse_backward), DtypeRule::Promote, r, false,
                             {&self, &t, &g}, {Scalar(mse_norm(self, reduction))});
      sub_out(self, t, kOne, r);  // integers: three passes (the kernel is float-only)
      mul_(r, norm());
      return mul_(r, g);
    });
  }
  Tensor g = mul(mul(sub(as_dt(self), as_dt(target), kOne), norm()), as_dt(grad_output));
  // aten writes into empty_like(self): the gradient has self's dtype whatever the others promote to,
  // if the promoted result may be cast to it
  check_cast(g.dtype(), self.dtype());
  return g.dtype() == self.dtype() ? g : to_dtype(g, self.dtype());
}

}  // namespace ember
