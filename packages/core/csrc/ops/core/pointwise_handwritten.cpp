// Pointwise ops whose body is more than "iterate + kernel": argument-driven
// kernel choice (div rounding modes, clamp bounds; relu, which is clamp_min), special errors, where.
#include <cmath>
#include <limits>
#include <utility>

#include "core/grad_mode.h"
#include "core/profiler_op.h"
#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/core/pointwise_run.h"

namespace ember {

Tensor run_pointwise(const char* name, NamedKernel k, DtypeRule rule, const Tensor& out, bool inplace,
                     std::initializer_list<const Tensor*> inputs, std::initializer_list<Scalar> params) {
  ElementwiseIter it(IterSpec{name, out, inplace, rule}, inputs);
  const Backend& b = backend(it.device());
  if (is_complex(it.compute_dtype())) b.complex.pointwise(k.name, it, params.begin());
  else (b.pointwise.*k.fn)(it, params.begin());
  it.finish();
  if (out.defined()) {
    out.bump_version();
    return out;
  }
  return it.take_output();
}

void same_dtype_as_self(const Tensor& self, std::initializer_list<const Tensor*> others) {
  for (const Tensor* t : others)
    EMBER_CHECK(t->dtype() == self.dtype(), "Found dtype ", legacy_name(t->dtype()), " but expected ",
                legacy_name(self.dtype()));
}

// ---- round ----
// round(x) and round(x, decimals=d) are separate overloads: an explicit
// decimals on an integer tensor raises even when it is 0, as in PyTorch.
static Tensor round_impl(const Tensor& out, bool inplace, const Tensor& x, std::optional<int64_t> decimals) {
  if (out.defined() && !inplace) check_out_exact(out.dtype(), x.dtype());
  if (decimals && !x.is_floating()) {
    // aten builds its iterator (the written tensor's overlap check) before the dtype dispatch.
    if (out.defined() && out.sizes().equals(x.sizes())) check_no_internal_overlap(out);
    dtype_not_implemented("round_cpu", x.dtype());
  }
  if (!decimals || *decimals == 0)
    return run_pointwise("round", EMBER_KERNEL(round), DtypeRule::Promote, out, inplace, {&x});
  return run_pointwise("round", EMBER_KERNEL(round_decimals), DtypeRule::Promote, out, inplace, {&x},
                       {Scalar(*decimals)});
}
Tensor round(const Tensor& input) { return round_impl(Tensor(), false, input, std::nullopt); }
Tensor round_(const Tensor& self) {
  check_inplace(self, "round_");
  return round_impl(self, true, self, std::nullopt);
}
Tensor round_out(const Tensor& input, const Tensor& out) { return round_impl(out, false, input, std::nullopt); }
Tensor round(const Tensor& input, int64_t decimals) { return round_impl(Tensor(), false, input, decimals); }
Tensor round_(const Tensor& self, int64_t decimals) {
  check_inplace(self, "round_");
  return round_impl(self, true, self, decimals);
}
Tensor round_out(const Tensor& input, int64_t decimals, const Tensor& out) {
  return round_impl(out, false, input, decimals);
}

// ---- clamp ----
static Tensor clamp_impl(const Tensor& out, bool inplace, const Tensor& x, const std::optional<Scalar>& lo,
                         const std::optional<Scalar>& hi) {
  EMBER_CHECK(lo || hi, "torch.clamp: At least one of 'min' or 'max' must not be None");
  EMBER_CHECK_NOTIMPL(!is_complex(x.dtype()), "clamp is not supported for complex types");
  // aten reads clamp's bounds as doubles: a complex bound is that conversion's error
  for (const std::optional<Scalar>* b : {&lo, &hi})
    EMBER_CHECK(!*b || !(*b)->is_complex() || (*b)->imag() == 0,
                "value cannot be converted to type double without overflow");
  // Bounds take part in type promotion like Python numbers (int tensor, float bound -> float).
  Tensor lot = lo ? wrap_number(*lo, x) : Tensor(), hit = hi ? wrap_number(*hi, x) : Tensor();
  const Tensor* ts[] = {&x, &lot, &hit};
  ScalarType rt = result_type(ts, 3);
  // (aten's clamp_ names the tensor's C type here: "... to the desired output type long int")
  EMBER_CHECK(!inplace || can_cast(rt, x.dtype()), "result type ", legacy_name(rt),
              " can't be cast to the desired output type ", c_type_name(x.dtype()));
  if (out.defined() && !inplace) check_out_exact(out.dtype(), rt);
  // aten fills the result with NaN when either of two bounds is NaN, without reading the other
  // (an integer result is fill_'s overflow error).
  if (lo && hi && (std::isnan(lo->to_double()) || std::isnan(hi->to_double()))) {
    const Tensor& r = inplace         ? x
                      : out.defined() ? resize_out(out, x.sizes())
                                      : empty_with_layout_of(x, rt, std::nullopt);
    check_no_internal_overlap(r);  // aten's iterator is built (and checks its output) first
    return fill_(r, Scalar(std::numeric_limits<double>::quiet_NaN()));
  }
  const Tensor& xin = (!inplace && rt != x.dtype()) ? to_dtype(x, rt) : x;
  if (lo && hi)
    return run_pointwise("clamp", EMBER_KERNEL(clamp_scalar), DtypeRule::Promote, out, inplace, {&xin}, {*lo, *hi});
  if (lo)
    return run_pointwise("clamp", EMBER_KERNEL(clamp_min_scalar), DtypeRule::Promote, out, inplace, {&xin}, {*lo});
  return run_pointwise("clamp", EMBER_KERNEL(clamp_max_scalar), DtypeRule::Promote, out, inplace, {&xin}, {*hi});
}
Tensor clamp(const Tensor& input, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp_impl(Tensor(), false, input, min, max);
}
Tensor clamp_(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  check_inplace(self, "clamp_");
  return clamp_impl(self, true, self, min, max);
}
Tensor clamp_out(const Tensor& input, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                 const Tensor& out) {
  return clamp_impl(out, false, input, min, max);
}
static Tensor clamp_t_impl(const Tensor& out, bool inplace, const Tensor& x, const Tensor& lo, const Tensor& hi) {
  EMBER_CHECK(lo.defined() || hi.defined(), "torch.clamp: At least one of 'min' or 'max' must not be None");
  EMBER_CHECK_NOTIMPL(!is_complex(x.dtype()), "clamp is not supported for complex types");
  if (lo.defined() && hi.defined())
    return run_pointwise("clamp", EMBER_KERNEL(clamp), DtypeRule::Promote, out, inplace, {&x, &lo, &hi});
  if (lo.defined())
    return run_pointwise("clamp", EMBER_KERNEL(clamp_min_tensor), DtypeRule::Promote, out, inplace, {&x, &lo});
  return run_pointwise("clamp", EMBER_KERNEL(clamp_max_tensor), DtypeRule::Promote, out, inplace, {&x, &hi});
}
Tensor clamp(const Tensor& input, const Tensor& min, const Tensor& max) {
  return clamp_t_impl(Tensor(), false, input, min, max);
}
Tensor clamp_(const Tensor& self, const Tensor& min, const Tensor& max) {
  check_inplace(self, "clamp_");
  return clamp_t_impl(self, true, self, min, max);
}
Tensor clamp_out(const Tensor& input, const Tensor& min, const Tensor& max, const Tensor& out) {
  return clamp_t_impl(out, false, input, min, max);
}
// aten's clamp_min.Tensor / clamp_max.Tensor are binary ops of their own: the iterator (shapes, promotion)
// comes first, then the kernel's dispatch refuses complex by its kernel name (maximum_cpu / minimum_cpu).
static Tensor clamp_bound_t(const Tensor& out, bool inplace, const Tensor& x, const Tensor& bound, bool is_min) {
  ElementwiseIter it(IterSpec{"clamp", out, inplace, DtypeRule::Promote}, {x, bound});
  const PointwiseKernels& k = backend(it.device()).pointwise;
  if (is_complex(it.compute_dtype())) dtype_not_implemented(is_min ? "maximum_cpu" : "minimum_cpu", it.compute_dtype());
  (is_min ? k.clamp_min_tensor : k.clamp_max_tensor)(it, nullptr);
  it.finish();
  if (out.defined()) {
    out.bump_version();
    return out;
  }
  return it.output();
}
Tensor clamp_min(const Tensor& input, const Tensor& min) { return clamp_bound_t(Tensor(), false, input, min, true); }
Tensor clamp_min_(const Tensor& self, const Tensor& min) {
  check_inplace(self, "clamp_min_");
  return clamp_bound_t(self, true, self, min, true);
}
Tensor clamp_min_out(const Tensor& input, const Tensor& min, const Tensor& out) {
  return clamp_bound_t(out, false, input, min, true);
}
Tensor clamp_max(const Tensor& input, const Tensor& max) { return clamp_bound_t(Tensor(), false, input, max, false); }
Tensor clamp_max_out(const Tensor& input, const Tensor& max, const Tensor& out) {
  return clamp_bound_t(out, false, input, max, false);
}
// the Scalar forms' out=: clamp's (its exact out dtype check)
Tensor clamp_min_out(const Tensor& input, const Scalar& min, const Tensor& out) {
  return clamp_out(input, min, std::nullopt, out);
}
Tensor clamp_max_out(const Tensor& input, const Scalar& max, const Tensor& out) {
  return clamp_out(input, std::nullopt, max, out);
}
Tensor clamp_max_(const Tensor& self, const Tensor& max) {
  check_inplace(self, "clamp_max_");
  return clamp_bound_t(self, true, self, max, false);
}
// clamp_min of a floating tensor by a real number: the result keeps the input's dtype (a wrapped
// number never promotes it), so the kernel runs with no wrapped bound built for the type promotion
// (relu's path). `out` is the input itself in place.
static bool keeps_dtype(const Tensor& x, const Scalar& bound) { return x.is_floating() && !bound.is_complex(); }
static Tensor clamp_min_floating(const Tensor& out, const Tensor& x, const Scalar& min) {
  const bool inplace = out.defined();
  ElementwiseIter it(IterSpec{"clamp", out, inplace, DtypeRule::Promote}, {&x});
  const Scalar params[] = {min};
  backend(it.device()).pointwise.clamp_min_scalar(it, params);
  it.finish();
  if (!inplace) return it.take_output();
  out.bump_version();
  return out;
}
// clamp_min / clamp_max by a complex number: aten's refusal by name (clamp itself fails converting it)
static void refuse_complex_bound(const Scalar& bound) {
  EMBER_CHECK_NOTIMPL(!bound.is_complex(), "clamp is not supported for complex types");
}
Tensor clamp_min(const Tensor& input, const Scalar& min) {
  refuse_complex_bound(min);
  return keeps_dtype(input, min) ? clamp_min_floating(Tensor(), input, min) : clamp(input, min, std::nullopt);
}
Tensor clamp_min_(const Tensor& self, const Scalar& min) {
  refuse_complex_bound(min);
  if (!keeps_dtype(self, min)) return clamp_(self, min, std::nullopt);
  check_inplace(self, "clamp_");
  return clamp_min_floating(self, self, min);
}

// ---- relu ----
// aten's relu is clamp_min(input, 0) and relu_ is clamp_min_(self, 0): their events nest in relu's.
static const Scalar kZero(int64_t(0));
Tensor relu(const Tensor& input) {
  EMBER_CHECK(input.dtype() != ScalarType::Bool, "Boolean inputs not supported for relu");
  return profiler::nested_op("aten::clamp_min", {&input, nullptr}, [&] { return clamp_min(input, kZero); });
}
Tensor relu_(const Tensor& self) {
  check_inplace(self, "relu_");
  EMBER_CHECK(self.dtype() != ScalarType::Bool, "Boolean inputs not supported for relu");
  // aten's clamp_min_ runs below relu_'s autograd layer: relu_'s in-place checks are its own
  return profiler::nested_op("aten::clamp_min_", {&self, nullptr}, [&] {
    return self.is_floating() ? clamp_min_floating(self, self, kZero) : clamp_min_(self, kZero);
  });
}
Tensor clamp_max(const Tensor& input, const Scalar& max) {
  refuse_complex_bound(max);
  return clamp(input, std::nullopt, max);
}
Tensor clamp_max_(const Tensor& self, const Scalar& max) {
  refuse_complex_bound(max);
  return clamp_(self, std::nullopt, max);
}

// ---- sub ----
static void check_sub(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(!(a.dtype() == ScalarType::Bool && b.dtype() == ScalarType::Bool),
              "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
              "`logical_xor()` operator instead.");
  EMBER_CHECK(a.dtype() != ScalarType::Bool && b.dtype() != ScalarType::Bool,
              "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
              "to invert a mask, use the `~` or `logical_not()` operator instead.");
}
static void check_sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  check_sub(a, b);
  const Tensor* ts[] = {&a, &b};
  check_alpha(result_type(ts, 2), alpha);
}
// aten's sub runs add's kernel with -alpha, and c10 negates an int in int64, wrapping: a uint64
// Scalar (an int above INT64_MAX) such as 2**63 becomes -2**63, which an int64 kernel takes (add's
// own alpha = 2**63 is the overflow error), and -2**63 stays -2**63. Other alphas keep the sub
// kernel (the same values).
static std::pair<NamedKernel, Scalar> sub_kernel(const Tensor& x, const Scalar& alpha) {
  if (!alpha.is_int() || !(alpha.is_uint64() || alpha.int_bits() == std::numeric_limits<int64_t>::min()))
    return {EMBER_KERNEL(sub), alpha};
  return {EMBER_KERNEL(add), Scalar(static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(alpha.int_bits())))};
}
Tensor sub(const Tensor& input, const Tensor& other, const Scalar& alpha) {
  check_sub(input, other, alpha);
  auto [k, a] = sub_kernel(input, alpha);
  return run_pointwise("sub", k, DtypeRule::Promote, Tensor(), false, {&input, &other}, {a});
}
Tensor sub_(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub(self, other, alpha);
  check_inplace(self, "sub_");
  auto [k, a] = sub_kernel(self, alpha);
  return run_pointwise("sub_", k, DtypeRule::Promote, self, true, {&self, &other}, {a});
}
Tensor sub_out(const Tensor& input, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  check_sub(input, other, alpha);
  auto [k, a] = sub_kernel(input, alpha);
  return run_pointwise("sub", k, DtypeRule::Promote, out, false, {&input, &other}, {a});
}
Tensor rsub(const Tensor& input, const Tensor& other, const Scalar& alpha) { return sub(other, input, alpha); }

// ---- div ----
static Tensor div_impl(const Tensor& out, bool inplace, const Tensor& a, const Tensor& b,
                       std::optional<std::string_view> mode) {
  if (!mode) return run_pointwise("div", EMBER_KERNEL(div_true), DtypeRule::IntToFloat, out, inplace, {&a, &b});
  bool trunc = *mode == "trunc", floor = *mode == "floor";
  if (trunc || floor) {
    const Tensor* ts[] = {&a, &b};
    // the shapes first; an empty result divides nothing, so no divisor is refused (aten runs no kernel)
    const DimVector shape = broadcast_shapes(a.sizes(), b.sizes());
    if ((inplace ? a.numel() : compute_numel(shape)) > 0) check_int_divisor(result_type(ts, 2), b);
    return run_pointwise("div", trunc ? EMBER_KERNEL(div_trunc) : EMBER_KERNEL(div_floor), DtypeRule::Promote, out,
                         inplace, {&a, &b});
  }
  fail(ErrorKind::Runtime, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
       std::string(*mode), "'");
}
Tensor div(const Tensor& input, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  return div_impl(Tensor(), false, input, other, rounding_mode);
}
Tensor div_(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  check_inplace(self, "div_");
  return div_impl(self, true, self, other, rounding_mode);
}
Tensor div_out(const Tensor& input, const Tensor& other, std::optional<std::string_view> rounding_mode,
               const Tensor& out) {
  return div_impl(out, false, input, other, rounding_mode);
}

// ---- pow ----
static void check_pow(const Tensor& base, const Tensor& exp) {
  if (!exp.impl()->wrapped_number || base.impl()->wrapped_number) return;
  // (an int in [2^63, 2^64) is refused as int64 first: the number's value, not its int64 bits)
  if (is_integral(base.dtype(), true) && is_integral(exp.dtype(), true))
    EMBER_CHECK(number_value(exp).checked<int64_t>() >= 0, "Integers to negative integer powers are not allowed.");
  // aten's pow(Tensor, Scalar) reads a number exponent as the computation's type for integers and
  // half types (float32 / float64 take it as a double): checked, like every such Scalar
  const Tensor* ts[] = {&base, &exp};
  const ScalarType rt = result_type(ts, 2);
  if (rt != ScalarType::Float32 && rt != ScalarType::Float64 && rt != ScalarType::Bool && !is_complex(rt))
    EMBER_DISPATCH_ALL(rt, "pow", [&] { (void)exp.item().checked<scalar_t>(); });
}
// A float32 pow reads a number exponent as the double it is (aten: 1e-46 is no 0 there, 2**24 + 1 stays odd):
// where float32 would round it, the power is taken in float64 and rounded once.
static bool rounds_in_float(double e) {
  return std::isfinite(e) && std::fabs(e) <= std::numeric_limits<float>::max() &&
         static_cast<double>(static_cast<float>(e)) != e;
}
Tensor pow(const Tensor& input, const Tensor& exponent) {
  check_pow(input, exponent);
  // A Python-number exponent of 2 or 0.5 takes the square / sqrt kernels, as in
  // PyTorch (so pow(-inf, 0.5) is nan here but inf with a tensor exponent).
  // (a complex exponent computes as it is: its real part alone would pick a wrong shortcut)
  if (exponent.impl()->wrapped_number && !input.impl()->wrapped_number && !is_complex(exponent.dtype())) {
    double e = exponent.item().to_double();
    const Tensor* ts[] = {&input, &exponent};
    ScalarType rt = result_type(ts, 2);
    if (e == 1.0) return clone(to_dtype(input, rt), std::nullopt);
    if (e == 0.0) return ones_like(input, rt, std::nullopt, std::nullopt);
    if (e == 2.0) return square(to_dtype(input, rt));
    if (e == 0.5 && is_floating(rt)) return sqrt(to_dtype(input, rt));
    if (rt == ScalarType::Float32 && rounds_in_float(e))
      return to_dtype(pow(to_dtype(input, ScalarType::Float64), exponent), ScalarType::Float32);
  }
  return run_pointwise("pow", EMBER_KERNEL(pow), DtypeRule::Promote, Tensor(), false, {&input, &exponent});
}
Tensor pow_(const Tensor& self, const Tensor& exponent) {
  check_pow(self, exponent);
  check_inplace(self, "pow_");
  if (exponent.impl()->wrapped_number && !is_complex(exponent.dtype())) {
    check_no_internal_overlap(self);  // aten's iterator refuses it before the shortcuts below
    double e = exponent.item().to_double();
    if (e == 1.0 && can_cast(exponent.dtype(), self.dtype())) {
      self.bump_version();
      return self;
    }
    if (e == 0.0 && can_cast(exponent.dtype(), self.dtype())) return fill_(self, Scalar(int64_t(1)));
    if (self.is_floating() && e == 2.0) return square_(self);
    if (self.is_floating() && e == 0.5) return sqrt_(self);
    if (self.dtype() == ScalarType::Float32 && rounds_in_float(e)) {
      copy_into(self, pow(to_dtype(self, ScalarType::Float64), exponent));
      self.bump_version();
      return self;
    }
  }
  return run_pointwise("pow_", EMBER_KERNEL(pow), DtypeRule::Promote, self, true, {&self, &exponent});
}
Tensor pow_out(const Tensor& input, const Tensor& exponent, const Tensor& out) {
  check_pow(input, exponent);
  if (exponent.impl()->wrapped_number && !input.impl()->wrapped_number && !is_complex(exponent.dtype()) &&
      (out.is_floating() || is_complex(out.dtype()))) {
    const Tensor* ts[] = {&input, &exponent};
    if (result_type(ts, 2) == ScalarType::Float32 && rounds_in_float(exponent.item().to_double())) {
      const Tensor r = pow(input, exponent);  // float32, as pow computes it; then cast into out=
      resize_out(out, r.sizes());
      copy_into(out, r);
      out.bump_version();
      return out;
    }
  }
  return run_pointwise("pow", EMBER_KERNEL(pow), DtypeRule::Promote, out, false, {&input, &exponent});
}

// ---- square (bool squares as int64, like pow(x, 2)) ----
static Tensor square_impl(const Tensor& out, bool inplace, const Tensor& x) {
  const Tensor& in = x.dtype() == ScalarType::Bool && !inplace ? to_dtype(x, ScalarType::Int64) : x;
  return run_pointwise("square", EMBER_KERNEL(square), DtypeRule::Promote, out, inplace, {&in});
}
Tensor square(const Tensor& input) { return square_impl(Tensor(), false, input); }
Tensor square_(const Tensor& self) {
  check_inplace(self, "square_");
  EMBER_CHECK(self.dtype() != ScalarType::Bool, "result type Long can't be cast to the desired output type Bool");
  return square_impl(self, true, self);
}
Tensor square_out(const Tensor& input, const Tensor& out) { return square_impl(out, false, input); }

// ---- lerp: all operands share one floating dtype ----
static Tensor lerp_impl(const Tensor& out, bool inplace, const Tensor& a, const Tensor& b, const Tensor& w) {
  bool scalar_w = w.impl()->wrapped_number;
  // a weight of 1+ dims: aten wants one dtype for all, out= included; with a 0-d or number weight
  // its iterator promotes and casts the result into out= (a safe cast, checked by the iterator
  // before the kernel's dtype dispatch)
  if (out.defined() && !inplace && !scalar_w && w.dim() > 0) {
    const Tensor* ts[] = {&a, &b, &w};
    ScalarType rt = result_type(ts, 3);
    check_out_exact(out.dtype(), rt);
  }
  EMBER_CHECK(a.dtype() == b.dtype(), "expected dtype ", c_type_name(a.dtype()), " for `end` but got dtype ",
              c_type_name(b.dtype()));
  if (!scalar_w && w.dim() > 0)  // a 0-d weight may have another dtype
    EMBER_CHECK(a.dtype() == w.dtype(), "expected dtype ", c_type_name(a.dtype()), " for `weight` but got dtype ",
                c_type_name(w.dtype()));
  // aten builds the iterator (shapes, the out= tensor) before its kernel's dtype dispatch; a
  // number weight is no operand there (it takes no part in the dtype an int input fails on).
  auto dispatch = [&](ScalarType dt) {
    EMBER_CHECK_NOTIMPL(is_floating_or_complex(dt), "\"", scalar_w ? "lerp_kernel_scalar" : "lerp_kernel_tensor",
                        "\" not implemented for '", legacy_name(dt), "'");
  };
  if (scalar_w && !a.is_floating()) {
    ElementwiseIter probe(IterSpec{"lerp", out, inplace, DtypeRule::Promote}, {a, b});
    dispatch(a.dtype());
  }
  ElementwiseIter it(IterSpec{"lerp", out, inplace, DtypeRule::Promote}, {a, b, w});
  dispatch(it.compute_dtype());  // a 0-d float weight promotes int inputs, as in aten
  if (is_complex(it.compute_dtype())) backend(it.device()).complex.pointwise("lerp", it, nullptr);
  else backend(it.device()).pointwise.lerp(it, nullptr);
  it.finish();
  if (out.defined()) {
    out.bump_version();
    return out;
  }
  return it.take_output();
}
Tensor lerp(const Tensor& input, const Tensor& end, const Tensor& weight) {
  return lerp_impl(Tensor(), false, input, end, weight);
}
Tensor lerp_(const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_inplace(self, "lerp_");
  return lerp_impl(self, true, self, end, weight);
}
Tensor lerp_out(const Tensor& input, const Tensor& end, const Tensor& weight, const Tensor& out) {
  return lerp_impl(out, false, input, end, weight);
}

// ---- closeness ----
Tensor isclose(const Tensor& input, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(input.dtype() == other.dtype(), legacy_name(input.dtype()), " did not match ",
              legacy_name(other.dtype()));
  EMBER_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol);
  EMBER_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol);
  // aten's composite, op for op: |a - b| and atol + |rtol * b| are tensor ops in the input's dtype,
  // integer and bool inputs in the default float dtype (float32's rtol = 1e300 is inf, so 0 * inf
  // makes a NaN tolerance; 3e38 - -3e38 is inf), and a non-finite |a - b| is never close.
  Tensor close = eq(input, other);
  if (equal_nan && (input.is_floating() || is_complex(input.dtype())))
    close = logical_or(close, logical_and(isnan(input), isnan(other)));
  if (rtol == 0 && atol == 0) return close;
  const bool as_float = !input.is_floating() && !is_complex(input.dtype());
  const Tensor a = as_float ? to_dtype(input, default_dtype()) : input;
  const Tensor b = as_float ? to_dtype(other, default_dtype()) : other;
  const Scalar one(int64_t(1));
  Tensor allowed = add(abs(mul(b, wrap_scalar(Scalar(rtol)))), wrap_scalar(Scalar(atol)), one);
  Tensor actual = abs(sub(a, b, one));
  return logical_or(close, logical_and(isfinite(actual), le(actual, allowed)));
}
bool allclose(const Tensor& input, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return all(isclose(input, other, rtol, atol, equal_nan)).item().to_bool();
}
bool equal(const Tensor& input, const Tensor& other) {
  if (!input.sizes().equals(other.sizes())) return false;
  return all(eq(input, other)).item().to_bool();
}

// ---- addcdiv ----
static void check_addcdiv(const Tensor& t1, const Tensor& t2) {
  EMBER_CHECK(!(is_integral(t1.dtype(), true) && is_integral(t2.dtype(), true)),
              "Integer division with addcdiv is no longer supported, and in a future release "
              "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
              "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to("
              "input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float "
              "inputs. The future addcdiv behavior is just the latter implementation: (input + value "
              "* tensor1 / tensor2), for all dtypes.");
}
Tensor addcdiv(const Tensor& input, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  check_addcdiv(tensor1, tensor2);
  return run_pointwise("addcdiv", EMBER_KERNEL(addcdiv), DtypeRule::Promote, Tensor(), false,
                       {&input, &tensor1, &tensor2}, {value});
}
Tensor addcdiv_(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  check_addcdiv(tensor1, tensor2);
  check_inplace(self, "addcdiv_");
  return run_pointwise("addcdiv_", EMBER_KERNEL(addcdiv), DtypeRule::Promote, self, true, {&self, &tensor1, &tensor2},
                       {value});
}
Tensor addcdiv_out(const Tensor& input, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                   const Tensor& out) {
  check_addcdiv(tensor1, tensor2);
  return run_pointwise("addcdiv", EMBER_KERNEL(addcdiv), DtypeRule::Promote, out, false, {&input, &tensor1, &tensor2},
                       {value});
}

// ---- gelu, threshold, softplus, elu, celu, leaky_relu, softshrink, hardtanh (ops/nn_activation.yaml) ----
// `approximate` picks the erf or the tanh kernel; anything else is PyTorch's error.
static bool gelu_tanh_form(std::string_view approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
  return approximate == "tanh";
}
Tensor gelu(const Tensor& self, std::string_view approximate) {
  return run_pointwise("gelu", gelu_tanh_form(approximate) ? EMBER_KERNEL(gelu_tanh) : EMBER_KERNEL(gelu),
                       DtypeRule::Promote, Tensor(), false, {&self});
}
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  // aten's erf form takes its oneDNN path for a contiguous float32 / bfloat16 self of two or more
  // elements (after its iterator's broadcast), whose view of the gradient refuses int16 / int32 /
  // int64 / bool (int8 and uint8 it takes). A float16 self takes it only on CPUs with AVX512-FP16:
  // ember computes it (torch_known_wrong: gelu-backward-int-grad-half-self).
  const ScalarType g = grad_output.dtype(), x = self.dtype();
  if (!gelu_tanh_form(approximate) && (x == ScalarType::Float32 || x == ScalarType::BFloat16)) {
    (void)broadcast_shapes(grad_output.sizes(), self.sizes());
    EMBER_CHECK(
        !(self.is_contiguous() && self.numel() > 1 &&
          (g == ScalarType::Int16 || g == ScalarType::Int32 || g == ScalarType::Int64 || g == ScalarType::Bool)),
        "itensor_view_from_dense expects float/bfloat16/half/int8/fp8 tensor input", legacy_name(g));
  }
  return run_pointwise("gelu_backward",
                       gelu_tanh_form(approximate) ? EMBER_KERNEL(gelu_tanh_backward) : EMBER_KERNEL(gelu_backward),
                       DtypeRule::Promote, Tensor(), false, {&grad_output, &self});
}

// A bound of exactly 2.0**63 for an int64 tensor: c10's range check compares with INT64_MAX as a
// double (2**63 itself) and lets it through to a cast that wraps it to -2**63. 2**63 is no int64,
// so ember raises c10's overflow error (torch_known_wrong int64-bound-two-to-the-63).
static void check_int64_bound(ScalarType dtype, const Scalar& bound) {
  if (dtype == ScalarType::Int64 && bound.is_float() && bound.to_double() == 0x1p63)
    fail(ErrorKind::Runtime, "value cannot be converted to type int64_t without overflow");
}

Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  check_int64_bound(self.dtype(), threshold);
  check_int64_bound(self.dtype(), value);
  return run_pointwise("threshold", EMBER_KERNEL(threshold), DtypeRule::Promote, Tensor(), false, {&self},
                       {threshold, value});
}

Tensor softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  return run_pointwise("softplus", EMBER_KERNEL(softplus), DtypeRule::Promote, Tensor(), false, {&self},
                       {beta, threshold});
}

// elu (by hand: its alpha is not add's, which integer tensors refuse), its in-place form, the backward's
// kernel (from self or from the result) and celu, which is elu(alpha, 1, 1 / alpha) with 1 / alpha in double.
Tensor elu(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  return run_pointwise("elu", EMBER_KERNEL(elu), DtypeRule::Promote, Tensor(), false, {&self},
                       {alpha, scale, input_scale});
}
Tensor elu_(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  check_inplace(self, "elu_");
  return run_pointwise("elu_", EMBER_KERNEL(elu), DtypeRule::Promote, self, true, {&self}, {alpha, scale, input_scale});
}
Tensor elu_backward(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                    bool is_result, const Tensor& self_or_result) {
  // a negative alpha makes the result's sign no longer tell which side the input was on
  EMBER_CHECK(!is_result || alpha.to_double() >= 0.0,
              "In-place elu backward calculation is triggered with a negative slope which is not supported. This "
              "is caused by calling in-place forward function with a negative slope, please call out-of-place "
              "version instead.");
  return run_pointwise("elu_backward", is_result ? EMBER_KERNEL(elu_backward_result) : EMBER_KERNEL(elu_backward),
                       DtypeRule::Promote, Tensor(), false, {&grad_output, &self_or_result},
                       {alpha, scale, input_scale});
}
static Scalar celu_input_scale(const Scalar& alpha) {
  EMBER_CHECK(alpha.to_double() != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return Scalar(1.0 / alpha.to_double());
}
Tensor celu(const Tensor& self, const Scalar& alpha) {
  const Scalar input_scale = celu_input_scale(alpha);
  return elu(self, alpha, Scalar(1.0), input_scale);
}
Tensor celu_(const Tensor& self, const Scalar& alpha) {
  const Scalar input_scale = celu_input_scale(alpha);
  return elu_(self, alpha, Scalar(1.0), input_scale);
}

// leaky_relu's in-place form (its backward reads the result) and that backward's kernel.
Tensor leaky_relu_(const Tensor& self, const Scalar& negative_slope) {
  check_inplace(self, "leaky_relu_");
  return run_pointwise("leaky_relu_", EMBER_KERNEL(leaky_relu), DtypeRule::Promote, self, true, {&self},
                       {negative_slope});
}
Tensor leaky_relu_backward(const Tensor& grad_output, const Tensor& self, const Scalar& negative_slope,
                           bool self_is_result) {
  // a negative slope flips the sign, so the result no longer tells which side the input was on
  EMBER_CHECK(!self_is_result || negative_slope.to_double() >= 0.0,
              "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
              "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
              "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
              "in-place leakRelu backward calculation with negative slope");
  return run_pointwise("leaky_relu_backward", EMBER_KERNEL(leaky_relu_backward), DtypeRule::Promote, Tensor(), false,
                       {&grad_output, &self}, {negative_slope});
}

// aten's softshrink checks lambd against the dtype's range first (a dispatch named softshrink_check).
Tensor softshrink(const Tensor& self, const Scalar& lambd) {
  const ScalarType t = self.dtype();
  if (!is_floating(t)) dtype_not_implemented("softshrink_check", t);
  const double top = t == ScalarType::Float64    ? std::numeric_limits<double>::max()
                     : t == ScalarType::Float16  ? 65504.0
                     : t == ScalarType::BFloat16 ? 0x1.fep127
                                                 : static_cast<double>(std::numeric_limits<float>::max());
  const double v = lambd.to_double();
  EMBER_CHECK(v >= 0 && v <= top, "lambda must be in range [0, ", top, "] for input dtype ", legacy_name(t),
              ", but found ", v);
  return run_pointwise("softshrink", EMBER_KERNEL(softshrink), DtypeRule::Promote, Tensor(), false, {&self}, {lambd});
}

// log_sigmoid's buffer e^-|x| (its backward's input; autograd recomputes it) and the backward, whose
// iterator (aten's default config) wants one dtype: self's.
Tensor log_sigmoid_buffer(const Tensor& self) {
  return run_pointwise("log_sigmoid", EMBER_KERNEL(log_sigmoid_buffer), DtypeRule::Promote, Tensor(), false, {&self});
}
Tensor log_sigmoid_backward(const Tensor& grad_output, const Tensor& self, const Tensor& buffer) {
  EMBER_CHECK(!(GradMode::is_enabled() && buffer.requires_grad()),
              "The function 'log_sigmoid_backward' is not differentiable with respect to argument 'buffer'. This "
              "input cannot have requires_grad True.");
  same_dtype_as_self(self, {&buffer, &grad_output});
  return run_pointwise("log_sigmoid_backward", EMBER_KERNEL(log_sigmoid_backward), DtypeRule::Promote, Tensor(), false,
                       {&grad_output, &self, &buffer});
}

// aten's hardtanh is clamp, except that integer inputs keep their dtype: the bounds are
// truncated to integers first (PyTorch's "legacy behavior of boundaries not causing type promotion").
Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  EMBER_CHECK(self.dtype() != ScalarType::Bool, "Bool inputs not supported for hardtanh");
  if (!is_integral(self.dtype(), false)) return clamp(self, min_val, max_val);
  // aten: toLong(), then clamp (whose kernel checks the bounds against the dtype).
  check_int64_bound(self.dtype(), min_val);
  check_int64_bound(self.dtype(), max_val);
  const int64_t lo = min_val.checked<int64_t>(), hi = max_val.checked<int64_t>();
  EMBER_CHECK(self.dtype() != ScalarType::UInt8 || (lo >= 0 && hi >= 0),
              "cannot do hardtanh on an unsigned type with negative limits");
  return clamp(self, Scalar(lo), Scalar(hi));
}

// ---- where ----
// aten's where takes a Python number through scalar_tensor(number, result dtype), whose fill reads
// it with the checked conversion: 300 beside a uint8 tensor is the overflow error, not 44. The
// half types take any number (past their range it is inf there, as in aten's half fill).
static Tensor where_operand(const Tensor& t, ScalarType rt) {
  if (t.impl()->wrapped_number && rt != ScalarType::Float16 && rt != ScalarType::BFloat16) {
    const Scalar s = number_value(t);
    EMBER_DISPATCH_EVERY_TYPE(rt, "where", [&] { (void)s.checked<scalar_t>(); });
  }
  return to_dtype(t, rt);
}

static Tensor where_impl(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(cond.dtype() == ScalarType::Bool || cond.dtype() == ScalarType::UInt8,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              legacy_name(cond.dtype()));
  const Tensor* ts[] = {&a, &b};
  ScalarType rt = result_type(ts, 2);
  if (out.defined()) check_out_dtype(out, rt);
  Tensor c = to_dtype(cond, ScalarType::Bool);
  ElementwiseIter it(IterSpec{"where", out, false, DtypeRule::Promote, rt, false},
                     {c, where_operand(a, rt), where_operand(b, rt)});
  backend(it.device()).copy.where(it);
  it.finish();
  if (out.defined()) {
    out.bump_version();
    return out;
  }
  return it.take_output();
}
Tensor where(const Tensor& condition, const Tensor& input, const Tensor& other) {
  return where_impl(Tensor(), condition, input, other);
}
Tensor where_method(const Tensor& input, const Tensor& condition, const Tensor& other) {
  return where_impl(Tensor(), condition, input, other);
}
Tensor where_out(const Tensor& condition, const Tensor& input, const Tensor& other, const Tensor& out) {
  return where_impl(out, condition, input, other);
}

}  // namespace ember
