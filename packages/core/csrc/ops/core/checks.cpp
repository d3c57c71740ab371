// Argument checks shared by op bodies (declared in checks.h): each raises PyTorch's error
// before any kernel runs, since kernels never throw.
#include <cmath>

#include "core/grad_mode.h"
#include "iter/elementwise_iter.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"

namespace ember {

// Reads only the autograd metadata every tensor carries (core data), so op bodies without an
// autograd wrapper (fill_, the samplers) run it too.
namespace {
ViewLabel g_view_label = nullptr;

bool impl_requires_grad(const TensorImpl* t) {
  return t && t->autograd && (t->autograd->requires_grad || t->autograd->grad_fn);
}

constexpr const char* kNoGradTail =
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
    "both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
    "tracked) or both outside (if you want the inplace to be tracked).";
constexpr const char* kMultiTail =
    " This view is the output of a function that returns multiple views. Such functions do not allow the output "
    "views to be modified inplace. You should replace the inplace operation by an out-of-place one.";
constexpr const char* kMadeInNoGrad =
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled.";
}  // namespace

void set_view_label(ViewLabel fn) { g_view_label = fn; }

void check_view_inplace(const Tensor& self, bool op_requires_grad) {
  const TensorImpl* i = self.impl();
  if (!i->creation_meta || !GradMode::is_enabled()) return;
  // a view requires grad when its base does (PyTorch's rule), even one made in no_grad mode
  if (!op_requires_grad && !impl_requires_grad(i) && !impl_requires_grad(i->base.get())) return;
  const bool named = i->autograd && i->autograd->grad_fn && g_view_label;
  const std::string who = named ? g_view_label(self) : std::string();
  if (i->creation_meta == kViewMultiOutput)
    EMBER_CHECK(false, named ? who + " is a view and is being modified inplace." : kMadeInNoGrad, kMultiTail);
  if (i->creation_meta == kViewOfNoGradView && named)
    EMBER_CHECK(false, who,
                " is a view of a view which was created in no_grad mode and is being modified inplace with grad "
                "mode enabled.",
                kNoGradTail);
  EMBER_CHECK(false, kMadeInNoGrad, kNoGradTail);
}

void check_inplace(const Tensor& self, bool op_requires_grad) {
  if (!GradMode::is_enabled()) return;
  check_view_inplace(self, op_requires_grad);
  const AutogradMeta* m = self.impl()->autograd.get();
  if (m && m->requires_grad && !m->grad_fn) {
    EMBER_CHECK(!self.impl()->base,
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation.");
    EMBER_CHECK(false, "a leaf Variable that requires grad is being used in an in-place operation.");
  }
  const TensorImpl* base = self.impl()->base.get();
  if (base && base->autograd && base->autograd->requires_grad && !base->autograd->grad_fn)
    EMBER_CHECK(false, "a view of a leaf Variable that requires grad is being used in an in-place operation.");
}

void check_alpha(ScalarType result, const Scalar& alpha) {
  EMBER_CHECK(!(is_integral(result, true) && alpha.is_float()),
              "For integral input tensors, argument alpha must not be a floating point number.");
  EMBER_CHECK(!(alpha.is_bool() && result != ScalarType::Bool), "Boolean alpha only supported for Boolean results.");
}

bool no_half_kernel(const char* kernel, ScalarType compute) {
  if (compute == ScalarType::Float16 || compute == ScalarType::BFloat16) dtype_not_implemented(kernel, compute);
  return true;
}

void check_int_divisor(ScalarType compute, const Tensor& divisor) {
  if (!is_integral(compute, false)) return;  // Bool: the kernel's dtype dispatch raises, as aten's
  // aten tests the divisor once converted to the computation dtype (2^32 is 0 as an int32).
  const Tensor d = divisor.dtype() == compute ? divisor : to_dtype(divisor, compute);
  bool zero = divisor.impl()->wrapped_number ? d.item().to_int() == 0
                                             : any(eq(d, wrap_scalar(Scalar(int64_t(0))))).item().to_bool();
  EMBER_CHECK(!zero, "ZeroDivisionError");
}

void apply_requires_grad(const Tensor& t, bool requires_grad) {
  if (!requires_grad) return;
  EMBER_CHECK(is_floating_or_complex(t.dtype()),
              "Only Tensors of floating point and complex dtype can require gradients");
  if (!t.impl()->autograd) t.impl()->autograd = std::make_unique<AutogradMeta>();
  t.impl()->autograd->requires_grad = true;
}

// The orthogonal polynomials' recurrences take n steps per element; where |x| < 1 the values stay
// bounded, so no overflow ends the loop early and a degree of 2^31 would run for minutes per
// element (PyTorch's does). Past 2^20 (a 20 ms loop per element; rounding by then is n * eps) ember raises.
bool poly_degree_bounded(const char* op, const Tensor& n) {
  constexpr double kMaxDegree = 1048576.0, kInt64 = 9.2233720368547758e18;
  if (n.numel() == 0 || n.device().is_meta()) return true;
  Tensor d = to_dtype(n, ScalarType::Float64);
  if (!d.device().is_cpu()) {
    // on a device: the degrees past the bound found there, the first brought back (a wait)
    const Tensor far = logical_and(gt(d, wrap_scalar(Scalar(kMaxDegree))), lt(d, wrap_scalar(Scalar(kInt64))));
    if (!any(far).item().to_bool()) return true;
    d = to_device(masked_select(d, far), cpu_device());
  }
  d = contiguous(d, MemoryFormat::Contiguous);
  const double* p = d.data<double>();
  for (int64_t i = 0; i < d.numel(); ++i) {
    // a degree beyond int64 (or negative, or NaN) is 0 without a loop, as in PyTorch
    EMBER_CHECK(!(p[i] > kMaxDegree && p[i] < kInt64), op, ": the degree n = ", static_cast<int64_t>(p[i]),
                " is too large: its three-term recurrence takes n steps per element; ember evaluates "
                "degrees up to 2^20 = 1048576");
  }
  return true;
}

std::string cpu_type_string(ScalarType t) {
  const bool old = t == ScalarType::Float32 || t == ScalarType::Float64 || t == ScalarType::Float16 ||
                   t == ScalarType::Int64 || t == ScalarType::Int32 || t == ScalarType::Int16 ||
                   t == ScalarType::Int8 || t == ScalarType::UInt8;
  return old ? str("torch.", legacy_name(t), "Tensor") : str("CPU", legacy_name(t), "Type");
}

}  // namespace ember
