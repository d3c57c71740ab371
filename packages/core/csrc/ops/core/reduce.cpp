// Reductions: sum/mean/prod/max/min/all/any through ReduceIter and one
// kernel per kind; var/std/logsumexp/norm composed from those.
#include <cmath>
#include <limits>
#include <string_view>

#include "core/profiler_op.h"
#include "iter/elementwise_iter.h"
#include "iter/reduce_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/core/xor_sum.h"

namespace ember {

namespace {

using DimMask = SmallVec<bool, 8>;

// Which dims to reduce; None or [] mean all of them. by_dim: var/std and vector_norm's order
// (see dim_list_bits).
DimMask dim_mask(const Tensor& x, std::optional<IntArrayRef> dim, bool by_dim = false) {
  int64_t nd = x.dim();
  DimMask m(static_cast<size_t>(nd), false);
  if (!dim || dim->empty()) {
    for (auto& b : m) b = true;
    return m;
  }
  const uint64_t bits = dim_list_bits(*dim, nd, !by_dim);
  for (int64_t d = 0; d < nd; ++d) m[d] = (bits >> d) & 1u;
  return m;
}

DimVector keep_shape(const Tensor& x, const DimMask& m) {
  DimVector s = to_vec(x.sizes());
  for (size_t d = 0; d < s.size(); ++d)
    if (m[d]) s[d] = 1;
  return s;
}

// (restride_result: a reduction's result is no view of its accumulator, as in PyTorch)
Tensor drop_dims(Tensor t, const DimMask& m, bool keepdim) {
  if (keepdim) return t;
  DimVector sizes, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (m[d]) continue;
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  return restride_result(std::move(t), sizes, strides);
}

int64_t reduced_count(const Tensor& x, const DimMask& m) {
  int64_t n = 1;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (m[d]) n *= x.sizes()[d];
  return n;
}

ScalarType acc_dtype(ReduceKind k, ScalarType in) {
  switch (k) {
    case ReduceKind::Sum:
    case ReduceKind::NanSum:
    case ReduceKind::Prod:
      if (is_integral(in, true)) return ScalarType::Int64;
      [[fallthrough]];
    case ReduceKind::SumSq:
    case ReduceKind::Max:
    case ReduceKind::Min:
      return (in == ScalarType::Float16 || in == ScalarType::BFloat16) ? ScalarType::Float32 : in;
    case ReduceKind::All:
    case ReduceKind::Any:
      return ScalarType::Bool;
    case ReduceKind::XorSum:
      return is_floating(in) ? ScalarType::Float64 : ScalarType::Int64;
  }
  return in;
}

// What out= dtypes a reduction accepts (PyTorch differs per op).
enum class OutDtype { Castable, Any, Exact, ExactArg };

// The out= dtype check of `rule` for a result of dtype rd.
void check_out_rule(ScalarType rd, ScalarType od, OutDtype rule) {
  switch (rule) {
    case OutDtype::Castable:
      check_cast(rd, od);
      break;
    case OutDtype::Any:
      break;
    case OutDtype::Exact:
      EMBER_CHECK(od == rd, "Expected the dtype for input and out to match, but got ", legacy_name(rd),
                  " for input's dtype and ", legacy_name(od), " for out's dtype.");
      break;
    case OutDtype::ExactArg:
      EMBER_CHECK(od == rd, "Expected out tensor to have dtype ", c_type_name(rd), ", but got ", c_type_name(od),
                  " instead");
      break;
  }
}

Tensor finish_out(Tensor r, const Tensor* out, OutDtype rule = OutDtype::Castable) {
  if (!out) return r;
  check_out_rule(r.dtype(), out->dtype(), rule);
  resize_out(*out, r.sizes());
  copy_into(*out, r);
  out->bump_version();
  return *out;
}

// The shared reduction: returns `x` reduced over `m` in `out_dtype`.
Tensor reduce(const Tensor& x, const DimMask& m, bool keepdim, ReduceKind kind, ScalarType out_dtype,
              const Tensor* out = nullptr, OutDtype rule = OutDtype::Castable) {
  if (is_shell_unsigned(x.dtype())) {
    // uint16/32/64: aten sums them (into int64) but has no max/min kernel for them
    if (kind == ReduceKind::Max || kind == ReduceKind::Min)
      dtype_not_implemented(kind == ReduceKind::Max ? "max_all" : "min_all", x.dtype());
    if (kind != ReduceKind::All && kind != ReduceKind::Any)
      return reduce(to_dtype(x, ScalarType::Int64), m, keepdim, kind, out_dtype, out, rule);
  }
  Tensor acc = empty(keep_shape(x, m), acc_dtype(kind, x.dtype()), x.device());
  {
    ReduceIter it(acc, x);               // (borrows acc: done before acc is restrided in place)
    backend(x).reduce.reduce(it, kind);  // fills acc with the identity (its fill_ event), then accumulates
  }
  Tensor r = acc.dtype() == out_dtype ? std::move(acc) : to_dtype(acc, out_dtype);
  if (keepdim) return finish_out(std::move(r), out, rule);
  // the kept-dims result without them: aten's reductions view theirs through as_strided (the
  // other way round), an op event in PyTorch's trace; the result itself is no view
  return finish_out(profiler::nested_op("aten::as_strided", {&r, nullptr, nullptr, nullptr},
                                        [&] { return drop_dims(std::move(r), m, false); }),
                    out, rule);
}

ScalarType sum_dtype(const Tensor& x, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(x.dtype(), true) ? ScalarType::Int64 : x.dtype();
}

Tensor sum_impl(const Tensor& x0, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                ReduceKind kind, const Tensor* out) {
  const bool dtype_given = dtype.has_value();
  if (out && dtype && out->dtype() != *dtype) {
    // dtype= with out=: aten wants out= in exactly that dtype (after the dims are checked; nansum
    // of a float input into a float dtype words it its own way, before them)
    if (kind == ReduceKind::NanSum && x0.is_floating() && is_floating_or_complex(*dtype))
      fail(ErrorKind::Runtime, "nansum: provided dtype must match dtype of result. Got ", legacy_name(out->dtype()),
           " and ", legacy_name(*dtype), ".");
    (void)dim_mask(x0, dim);
    check_out_rule(*dtype, out->dtype(), OutDtype::ExactArg);
  }
  // With out= and no dtype, PyTorch accumulates in the out tensor's dtype.
  if (out && !dtype) dtype = out->dtype();
  if (kind == ReduceKind::NanSum) {
    // PyTorch's nansum kernel is float-only: a float input summed into an integer
    // out= fails, while integer inputs (or dtype=int) simply take sum.
    // (an empty input is filled with 0 before that dispatch); the dims are checked before both,
    // one by one (a repeat before a later out-of-range dim is the RuntimeError) -- except for an
    // integer input with out=, which aten hands to sum_out whole (every dim wrapped first)
    (void)dim_mask(x0, dim, !(out && is_integral(x0.dtype(), true)));
    if (is_complex(x0.dtype())) {
      EMBER_CHECK(!x0.device().is_cpu(), "nansum on CPU does not support complex inputs");
      // CUDA's nansum: a number with a NaN part counts as 0 (aten's _isnan of the pair)
      return sum_impl(masked_fill(x0, isnan(x0), Scalar(0.0)), dim, keepdim, dtype, ReduceKind::Sum, out);
    }
    if (out && !dtype_given && x0.is_floating() && x0.numel() > 0)
      EMBER_CHECK_NOTIMPL(is_floating(*dtype), "\"nansum_cpu\" not implemented for '", legacy_name(*dtype), "'");
    // a float input summed into a complex dtype reaches the float-only kernel too
    if (x0.is_floating() && x0.numel() > 0 && dtype && is_complex(*dtype)) dtype_not_implemented("nansum_cpu", *dtype);
    if (!is_floating(dtype ? *dtype : x0.dtype())) {
      kind = ReduceKind::Sum;
      // a float input summed as integers: PyTorch's NaNs count as 0, the rest convert as the cast does
      if (x0.is_floating()) return sum_impl(masked_fill(x0, isnan(x0), Scalar(0.0)), dim, keepdim, dtype, kind, out);
    }
  }
  // aten sums uint16/32/64 inputs into int64, but has no kernel that accumulates in them
  if (dtype && is_shell_unsigned(*dtype))
    dtype_not_implemented(kind == ReduceKind::Prod ? "prod_out_cpu" : "sum_cpu", *dtype);
  if ((dtype ? *dtype : x0.dtype()) == ScalarType::ComplexHalf)  // nor one for complex32
    dtype_not_implemented(kind == ReduceKind::Prod ? "prod_out_cpu" : "sum_cpu", ScalarType::ComplexHalf);
  Tensor converted;  // the input in dtype=, when one is given
  const Tensor& x = dtype ? (converted = to_dtype(x0, *dtype)) : x0;
  if (kind == ReduceKind::Sum && is_complex(x.dtype())) {
    // complex: the real and imaginary parts summed as a real tensor (view_as_real's last dim kept),
    // in out='s dtype (x is already), then written into it
    DimMask m = dim_mask(x, dim);  // the dims checked first: a 0-d input takes only 0 / -1
    if (x.dim() == 0) return finish_out(clone(x, std::nullopt), out);
    DimVector dims;
    for (int64_t d = 0; d < x.dim(); ++d)
      if (m[d]) dims.push_back(d);
    return finish_out(view_as_complex(sum(view_as_real(x), IntArrayRef(dims), keepdim, std::nullopt)), out);
  }
  return reduce(x, dim_mask(x, dim), keepdim, kind, sum_dtype(x0, dtype), out, OutDtype::Any);
}

// `given`: the dtype= argument rather than the input's dtype (aten names which)
void check_mean_dtype(const char* name, ScalarType dt, bool given = false) {
  EMBER_CHECK(is_floating_or_complex(dt), name, "(): could not infer output dtype. ", given ? "Optional" : "Input",
              " dtype must be either a floating point or complex dtype. Got: ", legacy_name(dt));
}

Tensor mean_impl(const char* name, const Tensor& x0, std::optional<IntArrayRef> dim, bool keepdim,
                 std::optional<ScalarType> dtype, bool nan, const Tensor* out) {
  const bool dtype_given = dtype.has_value();
  if (nan) {
    // (nanmean_out words it otherwise)
    EMBER_CHECK(out || is_floating_or_complex(x0.dtype()),
                "nanmean(): expected input to have floating point or complex dtype but got ", legacy_name(x0.dtype()));
    EMBER_CHECK(!out || is_floating_or_complex(x0.dtype()),
                "nanmean(): integral types and 'Bool' are not supported for nanmean, even for empty tensors.");
    // then the dtype asked for; aten counts the non-NaNs first (a sum over dim: its dims checked,
    // all wrapped first), then sums into out= (so a non-float out fails in nansum, as a complex input does).
    if (dtype) check_mean_dtype(name, *dtype, true);
    (void)dim_mask(x0, dim);
    if (out && dtype && out->dtype() != *dtype)
      fail(ErrorKind::Runtime, "nansum: provided dtype must match dtype of result. Got ", legacy_name(out->dtype()),
           " and ", legacy_name(*dtype), ".");
    EMBER_CHECK(!is_complex(x0.dtype()) || !x0.device().is_cpu(), "nansum on CPU does not support complex inputs");
    // (an empty input skips nansum's kernel and its dtype dispatch: the division's cast into out= alone is
    // checked, which a complex out= passes)
    if (out && !dtype && x0.numel() == 0)
      EMBER_CHECK(is_floating_or_complex(out->dtype()), "result type Float can't be cast to the desired output type ",
                  legacy_name(out->dtype()));
    else if (out && !dtype)
      EMBER_CHECK_NOTIMPL(out->is_floating(), "\"nansum_cpu\" not implemented for '", legacy_name(out->dtype()), "'");
  }
  // out= of another float dtype (complex too, for mean) is aten's dtype: the input is summed as that
  // dtype's, not rounded to its own first (float16 into a float32 out= keeps float32's digits)
  // (an integer or bool out= is refused naming Float, whatever the float input)
  if (!nan && out && dtype) {  // dtype= with out=: a floating dtype, the dims, and out= in exactly that dtype
    check_mean_dtype(name, *dtype, true);
    (void)dim_mask(x0, dim);
    check_out_rule(*dtype, out->dtype(), OutDtype::ExactArg);
  }
  if (!nan && out && !dtype && is_floating_or_complex(x0.dtype()) && !is_floating_or_complex(out->dtype())) {
    (void)dim_mask(x0, dim);  // the dims are checked first
    fail(ErrorKind::Runtime, "result type Float can't be cast to the desired output type ", legacy_name(out->dtype()));
  }
  if (out && !dtype && out->dtype() != x0.dtype() && is_floating_or_complex(x0.dtype()) &&
      (nan ? out->is_floating() : is_floating_or_complex(out->dtype())))
    dtype = out->dtype();
  check_mean_dtype(name, dtype ? *dtype : x0.dtype(), dtype_given);
  // A half-type dtype: aten sums the input in float32 (not cast to the dtype first), divides,
  // then rounds to the dtype once.
  const bool half_dtype = dtype && (*dtype == ScalarType::Float16 || *dtype == ScalarType::BFloat16);
  Tensor x = !dtype ? x0 : to_dtype(x0, half_dtype && !nan ? ScalarType::Float32 : *dtype);
  DimMask m = dim_mask(x, dim);
  if (!nan && (!out || out->dtype() == x.dtype()) && !half_dtype &&
      acc_dtype(ReduceKind::Sum, x.dtype()) == x.dtype()) {
    // As aten: the sum (into out=), divided in place by the count (nested op events, as in
    // PyTorch's trace).
    Tensor s = profiler::nested_op("aten::sum", {&x, nullptr, nullptr, nullptr}, [&] {
      return out ? sum_out(x, dim, keepdim, std::nullopt, *out) : sum(x, dim, keepdim, std::nullopt);
    });
    // div_ by the count as a number: aten's Scalar overload wraps it and calls the Tensor one,
    // whose iterator converts the wrapped int64 with `to`. ember's converts it on the stack, but
    // takes aten's path while a profiler records, so the trace shows the same calls.
    return profiler::nested_op("aten::div_", {&s, nullptr}, [&] {
      const int64_t count = reduced_count(x, m);
      if (!profiler::active()) return div_(s, wrap_scalar(Scalar(double(count))), std::nullopt);
      Tensor n = wrap_scalar(Scalar(count));
      return profiler::nested_op("aten::div_", {&s, &n},
                                 [&] { return div_(s, to_recorded(n, s.dtype()), std::nullopt); });
    });
  }
  Tensor s =
      nan && is_complex(x.dtype()) && !x.device().is_cpu()  // CUDA's complex nansum
          ? sum_impl(x, dim, keepdim, std::nullopt, ReduceKind::NanSum, nullptr)
          : reduce(x, m, keepdim, nan ? ReduceKind::NanSum : ReduceKind::Sum, acc_dtype(ReduceKind::Sum, x.dtype()));
  // PyTorch's nanmean is nansum(x) / count: the sum is rounded to x's dtype (inf for two
  // float16 65504s) -- or out='s, which it sums into -- before the division; mean divides the
  // float32 accumulator.
  const ScalarType nan_dt = out && !dtype ? out->dtype() : x.dtype();
  if (nan) s = to_dtype(s, nan_dt);
  Tensor n = nan ? sum(logical_not(isnan(x)), dim, keepdim, std::nullopt)
                 : scalar_tensor(Scalar(double(reduced_count(x, m))), s.dtype());
  return finish_out(to_dtype(div(s, n, std::nullopt), nan ? nan_dt : half_dtype ? *dtype : x.dtype()), out);
}

void check_nonempty(const char* name, const Tensor& x, const DimMask& m) {
  for (int64_t d = 0; d < x.dim(); ++d)
    EMBER_CHECK_INDEX(!(m[d] && x.sizes()[d] == 0), name, "(): Expected reduction dim ", d, " to have non-zero size.");
}

Tensor minmax_all(const char* name, const Tensor& x, ReduceKind kind) {
  EMBER_CHECK(x.numel() > 0, name,
              "(): Expected reduction dim to be specified for input.numel() == 0. "
              "Specify the reduction dim with the 'dim' argument.");
  return reduce(x, dim_mask(x, std::nullopt), false, kind, x.dtype());
}

// Values and indices of max/min along one dim.
std::tuple<Tensor, Tensor> minmax_dim(const char* name, const Tensor& x, int64_t dim, bool keepdim, bool is_max) {
  int64_t nd = x.dim();
  int64_t d = wrap_dim(dim, nd);
  DimMask m(static_cast<size_t>(nd), false);
  if (nd > 0) m[d] = true;
  check_nonempty(name, x, m);
  EMBER_CHECK_INDEX(x.numel() > 0 || nd > 0, name, "(): Expected reduction dim ", d, " to have non-zero size.");
  // max / min along a dim refuse complex after the dim checks (argmax / argmin: their kernel's dtype error)
  const std::string_view op(name);
  EMBER_CHECK(!is_complex(x.dtype()) || (op != "max" && op != "min"), name, "(): does not support complex input");
  Tensor moved = nd > 0 ? contiguous(transpose(x, d, nd - 1), MemoryFormat::Contiguous) : x;
  // After the transpose the kept dims are in a different order; reduce into
  // that order, then permute back to keepdim layout.
  DimVector kshape = to_vec(moved.sizes());
  if (nd > 0) kshape[nd - 1] = 1;
  Tensor values = empty(kshape, x.dtype(), x.device()), indices = empty(kshape, ScalarType::Int64, x.device());
  if (moved.numel() > 0) backend(x).reduce.arg_reduce(moved, values, indices, is_max);
  if (nd > 0) {
    auto back = [&](Tensor& t) {  // the reduced dim back in place of d (a transpose, not a view)
      DimVector sizes = to_vec(t.sizes()), strides = to_vec(t.strides());
      std::swap(sizes[d], sizes[nd - 1]);
      std::swap(strides[d], strides[nd - 1]);
      t = restride_result(std::move(t), sizes, strides);
    };
    back(values);
    back(indices);
  }
  return {drop_dims(std::move(values), m, keepdim), drop_dims(std::move(indices), m, keepdim)};
}

Tensor arg_impl(const char* name, const Tensor& x, std::optional<int64_t> dim, bool keepdim, bool is_max,
                const Tensor* out) {
  EMBER_CHECK(x.dtype() != ScalarType::Bool, name, "(): does not support bool input");
  EMBER_CHECK(!is_complex(x.dtype()), name, "(): does not support complex input");  // aten's meta, before the dims
  Tensor r;
  if (!dim) {
    EMBER_CHECK_INDEX(x.numel() > 0, name, "(): Expected reduction dim to be specified for input.numel() == 0.");
    Tensor flat = contiguous(reshape(x, {-1}), MemoryFormat::Contiguous);
    Tensor values, idx = empty({1}, ScalarType::Int64, x.device());
    backend(x).reduce.arg_reduce(flat, values, idx, is_max);
    r = keepdim ? reshape(idx, DimVector(static_cast<size_t>(x.dim()), 1)) : reshape(idx, {});
  } else {
    r = std::get<1>(minmax_dim(name, x, *dim, keepdim, is_max));
  }
  return finish_out(r, out, OutDtype::ExactArg);
}

double correction_of(const std::optional<Scalar>& c) { return c ? c->to_double() : 1.0; }

// What var divides the squared deviations of n values by (warning as PyTorch where it is <= 0);
// no values: 0, so NaN whatever the correction (0 / 0), as PyTorch.
double var_divisor(const char* name, double n, double correction) {
  const double dof = std::max(0.0, n - correction);
  if (dof <= 0)
    warn(str(name,
             "(): degrees of freedom is <= 0. Correction should be strictly less than the "
             "reduction factor (input numel divided by output numel)."));
  return n == 0 ? 0.0 : dof;
}

// var / std (and the mean) of a real floating x in the backend's one pass (the GPU's Welford
// kernel), accumulating half types in float32 and rounding once, as PyTorch does.
Tensor one_pass_var(const Tensor& x, const DimMask& m, double divisor, bool keepdim, bool take_sqrt, Tensor* mean_out) {
  const bool half = x.dtype() == ScalarType::Float16 || x.dtype() == ScalarType::BFloat16;
  Tensor v = empty(keep_shape(x, m), half ? ScalarType::Float32 : x.dtype(), x.device());
  Tensor mu = mean_out ? empty(v.sizes(), v.dtype(), x.device()) : Tensor();
  {
    ReduceIter it(v, x);
    backend(x).reduce.moments(it, mu, divisor, take_sqrt);
  }
  if (half) {
    v = to_dtype(v, x.dtype());
    if (mean_out) mu = to_dtype(mu, x.dtype());
  }
  if (mean_out) *mean_out = drop_dims(std::move(mu), m, keepdim);
  return drop_dims(std::move(v), m, keepdim);
}

Tensor var_impl(const char* name, const Tensor& x, std::optional<IntArrayRef> dim, double correction, bool keepdim,
                bool take_sqrt, Tensor* mean_out = nullptr) {
  if (is_complex(x.dtype())) {
    // aten: var(re) + var(im), a real result, here one pass over view_as_real's pairs
    DimMask m = dim_mask(x, dim, true);
    DimVector dims;
    for (int64_t d = 0; d < x.dim(); ++d)
      if (m[d]) dims.push_back(d);
    if (x.dim() == 0) dims.push_back(0);
    Tensor mu2;
    Tensor pairs = view_as_real(x.dim() == 0 ? reshape(x, {1}) : x);
    Tensor v2 = var_impl(name, pairs, IntArrayRef(dims), correction, keepdim, false, mean_out ? &mu2 : nullptr);
    const int64_t last[] = {-1};
    Tensor v = sum(v2, IntArrayRef(last, 1), false, std::nullopt);
    if (x.dim() == 0) v = reshape(v, {});
    if (mean_out)
      *mean_out = x.dim() == 0 ? clone(x, std::nullopt) : view_as_complex(contiguous(mu2, MemoryFormat::Contiguous));
    return take_sqrt ? sqrt(v) : v;
  }
  EMBER_CHECK(x.is_floating(), name, ": std and var only support floating point and complex dtypes");
  DimMask m = dim_mask(x, dim, true);
  const double n = static_cast<double>(reduced_count(x, m));
  if (backend(x).reduce.moments)
    return one_pass_var(x, m, var_divisor(name, n, correction), keepdim, take_sqrt, mean_out);
  if (x.dtype() == ScalarType::Float16 || x.dtype() == ScalarType::BFloat16) {
    // Accumulate in float32 and round once, as PyTorch does.
    Tensor mu32;
    Tensor r = var_impl(name, to_dtype(x, ScalarType::Float32), dim, correction, keepdim, take_sqrt,
                        mean_out ? &mu32 : nullptr);
    if (mean_out) *mean_out = to_dtype(mu32, x.dtype());
    return to_dtype(r, x.dtype());
  }
  Tensor mu = mean(x, dim, true, std::nullopt);
  // Deviations from the mean, less their own mean (the corrected two-pass algorithm): sum(x) / n
  // need not round back to x for n equal values, but their deviations x - mu are all the same
  // few-bit number, whose mean is exact -- so equal values have deviations of exactly 0 (var 0,
  // or NaN past the degrees of freedom), as PyTorch's Welford update gives.
  Tensor d = sub(x, mu, Scalar(int64_t(1)));
  d = sub(d, mean(d, dim, true, std::nullopt), Scalar(int64_t(1)));
  Tensor ss = sum(mul(d, d), dim, keepdim, std::nullopt);
  Tensor v = div(ss, wrap_scalar(Scalar(var_divisor(name, n, correction))), std::nullopt);
  if (mean_out) *mean_out = drop_dims(std::move(mu), m, keepdim);
  return take_sqrt ? sqrt(v) : v;
}

}  // namespace

// ---- sum / mean / prod ----
Tensor sum(const Tensor& input, std::optional<ScalarType> dtype) {
  return sum_impl(input, std::nullopt, false, dtype, ReduceKind::Sum, nullptr);
}
Tensor sum(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_impl(input, dim, keepdim, dtype, ReduceKind::Sum, nullptr);
}
Tensor sum_out(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
               const Tensor& out) {
  return sum_impl(input, dim, keepdim, dtype, ReduceKind::Sum, &out);
}
Tensor nansum(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_impl(input, dim, keepdim, dtype, ReduceKind::NanSum, nullptr);
}
Tensor nansum_out(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                  const Tensor& out) {
  return sum_impl(input, dim, keepdim, dtype, ReduceKind::NanSum, &out);
}
Tensor mean(const Tensor& input, std::optional<ScalarType> dtype) {
  // aten's overload without dims calls the one with dims (a nested event in PyTorch's trace)
  return profiler::nested_op("aten::mean", {&input, nullptr, nullptr, nullptr},
                             [&] { return mean_impl("mean", input, std::nullopt, false, dtype, false, nullptr); });
}
Tensor mean_out(const Tensor& input, std::optional<ScalarType> dtype, const Tensor& out) {
  // aten's mean.dtype_out: first, the input's dtype must cast to out='s
  EMBER_CHECK(can_cast(input.dtype(), out.dtype()),
              "mean.dtype_out(): input types can't be cast to the desired output type ", legacy_name(out.dtype()));
  return mean_impl("mean", input, std::nullopt, false, dtype, false, &out);
}
Tensor mean(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return mean_impl("mean", input, dim, keepdim, dtype, false, nullptr);
}
Tensor mean_out(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                const Tensor& out) {
  return mean_impl("mean", input, dim, keepdim, dtype, false, &out);
}
Tensor nanmean(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return mean_impl("nanmean", input, dim, keepdim, dtype, true, nullptr);
}
Tensor nanmean_out(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                   const Tensor& out) {
  return mean_impl("nanmean", input, dim, keepdim, dtype, true, &out);
}
Tensor prod(const Tensor& input, std::optional<ScalarType> dtype) {
  return sum_impl(input, std::nullopt, false, dtype, ReduceKind::Prod, nullptr);
}
Tensor prod(const Tensor& input, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  int64_t d[] = {dim};
  return sum_impl(input, IntArrayRef(d, 1), keepdim, dtype, ReduceKind::Prod, nullptr);
}
Tensor prod_out(const Tensor& input, int64_t dim, bool keepdim, std::optional<ScalarType> dtype, const Tensor& out) {
  int64_t d[] = {dim};
  return sum_impl(input, IntArrayRef(d, 1), keepdim, dtype, ReduceKind::Prod, &out);
}

// ---- max / min ----
Tensor max(const Tensor& input) { return minmax_all("max", input, ReduceKind::Max); }
Tensor min(const Tensor& input) { return minmax_all("min", input, ReduceKind::Min); }
std::tuple<Tensor, Tensor> max(const Tensor& input, int64_t dim, bool keepdim) {
  return minmax_dim("max", input, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> min(const Tensor& input, int64_t dim, bool keepdim) {
  return minmax_dim("min", input, dim, keepdim, false);
}
static std::tuple<Tensor, Tensor> minmax_out(std::tuple<Tensor, Tensor> r, const Tensor& values,
                                             const Tensor& indices) {
  finish_out(std::get<0>(r), &values, OutDtype::ExactArg);
  finish_out(std::get<1>(r), &indices, OutDtype::ExactArg);
  return {values, indices};
}
std::tuple<Tensor, Tensor> max_out(const Tensor& input, int64_t dim, bool keepdim, const Tensor& values,
                                   const Tensor& indices) {
  return minmax_out(max(input, dim, keepdim), values, indices);
}
std::tuple<Tensor, Tensor> min_out(const Tensor& input, int64_t dim, bool keepdim, const Tensor& values,
                                   const Tensor& indices) {
  return minmax_out(min(input, dim, keepdim), values, indices);
}
Tensor max(const Tensor& input, const Tensor& other) { return maximum(input, other); }
Tensor max_out(const Tensor& input, const Tensor& other, const Tensor& out) { return maximum_out(input, other, out); }
Tensor min(const Tensor& input, const Tensor& other) { return minimum(input, other); }
Tensor min_out(const Tensor& input, const Tensor& other, const Tensor& out) { return minimum_out(input, other, out); }

static Tensor amaxmin(const char* name, const Tensor& x, IntArrayRef dim, bool keepdim, ReduceKind k,
                      const Tensor* out) {
  // aten's meta checks the out= dtype before the empty-input checks
  if (out) check_out_rule(x.dtype(), out->dtype(), OutDtype::Exact);
  EMBER_CHECK(x.numel() > 0 || !dim.empty(), name,
              "(): Expected reduction dim to be specified for "
              "input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
  // aten walks the listed dims for an empty one before its repeated-dim check (an empty x has
  // at least one dim, and a non-empty x no empty dim to find)
  if (x.numel() == 0)
    for (int64_t d : dim) {
      const int64_t w = wrap_dim(d, x.dim());
      EMBER_CHECK_INDEX(x.sizes()[w] != 0, name, "(): Expected reduction dim ", w, " to have non-zero size.");
    }
  DimMask m = dim_mask(x, dim);
  if (is_complex(x.dtype())) {
    // aten's max_values / min_values kernels have no complex case, but an empty result skips them
    int64_t kept = 1;
    for (int64_t d = 0; d < x.dim(); ++d) kept *= m[d] ? 1 : x.sizes()[d];
    if (kept != 0) dtype_not_implemented(k == ReduceKind::Max ? "max_values_cpu" : "min_values_cpu", x.dtype());
    return sum_impl(x, dim, keepdim, std::nullopt, ReduceKind::Sum, out);
  }
  return reduce(x, m, keepdim, k, x.dtype(), out, OutDtype::Exact);
}
Tensor amax(const Tensor& input, IntArrayRef dim, bool keepdim) {
  return amaxmin("amax", input, dim, keepdim, ReduceKind::Max, nullptr);
}
Tensor amax_out(const Tensor& input, IntArrayRef dim, bool keepdim, const Tensor& out) {
  return amaxmin("amax", input, dim, keepdim, ReduceKind::Max, &out);
}
Tensor amin(const Tensor& input, IntArrayRef dim, bool keepdim) {
  return amaxmin("amin", input, dim, keepdim, ReduceKind::Min, nullptr);
}
Tensor amin_out(const Tensor& input, IntArrayRef dim, bool keepdim, const Tensor& out) {
  return amaxmin("amin", input, dim, keepdim, ReduceKind::Min, &out);
}
std::tuple<Tensor, Tensor> aminmax_out(const Tensor& input, std::optional<int64_t> dim, bool keepdim, const Tensor& min,
                                       const Tensor& max) {
  auto [lo, hi] = aminmax(input, dim, keepdim);
  finish_out(std::move(lo), &min, OutDtype::ExactArg);
  finish_out(std::move(hi), &max, OutDtype::ExactArg);
  return {min, max};
}
std::tuple<Tensor, Tensor> aminmax(const Tensor& input, std::optional<int64_t> dim, bool keepdim) {
  // aten's order: the dim, a 0-d complex input (its own message), an empty reduced dim, then
  // the kernel's dtype dispatch (aminmax_cpu)
  if (dim) {
    const int64_t w = wrap_dim(*dim, input.dim());
    EMBER_CHECK(!(input.dim() == 0 && is_complex(input.dtype())), "aminmax not implemented for ",
                legacy_name(input.dtype()));
    EMBER_CHECK_INDEX(input.numel() > 0 || input.sizes()[w] != 0, "aminmax: Expected reduction dim ", w,
                      " to have non-zero size.");
  } else {
    EMBER_CHECK(input.numel() > 0,
                "aminmax(): cannot compute aminmax over an empty dimension as the "
                "operation has no identity.");
  }
  if (is_complex(input.dtype())) dtype_not_implemented("aminmax_cpu", input.dtype());
  if (!dim) {
    Tensor lo = amin(input, {}, keepdim), hi = amax(input, {}, keepdim);
    return {lo, hi};
  }
  int64_t d[] = {*dim};
  return {amin(input, IntArrayRef(d, 1), keepdim), amax(input, IntArrayRef(d, 1), keepdim)};
}

Tensor argmax(const Tensor& input, std::optional<int64_t> dim, bool keepdim) {
  return arg_impl("argmax", input, dim, keepdim, true, nullptr);
}
Tensor argmax_out(const Tensor& input, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  return arg_impl("argmax", input, dim, keepdim, true, &out);
}
Tensor argmin(const Tensor& input, std::optional<int64_t> dim, bool keepdim) {
  return arg_impl("argmin", input, dim, keepdim, false, nullptr);
}
Tensor argmin_out(const Tensor& input, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  return arg_impl("argmin", input, dim, keepdim, false, &out);
}

// ---- all / any / count_nonzero ----
static Tensor logical_reduce(const Tensor& x, std::optional<IntArrayRef> dim, bool keepdim, ReduceKind k,
                             const Tensor* out) {
  // aten's allany_meta: out= must be bool or uint8 -- checked before the dims are wrapped --
  // and its dtype is the result's; without out=, a uint8 input gives uint8.
  const char* name = k == ReduceKind::All ? "all" : "any";
  if (out)
    EMBER_CHECK(out->dtype() == ScalarType::Bool || out->dtype() == ScalarType::UInt8, name,
                " only supports bool tensor for result, got: ", legacy_name(out->dtype()));
  ScalarType od = out ? out->dtype() : x.dtype() == ScalarType::UInt8 ? ScalarType::UInt8 : ScalarType::Bool;
  // aten reduces the input cast to the result dtype (into a uint8 out=, 0.5 is 0: false), except
  // a single element, which it copies as bool (0.5 is true).
  const Tensor& xr = od == ScalarType::UInt8 && x.numel() != 1 ? to_dtype(x, od) : x;
  Tensor b = xr.dtype() == ScalarType::Bool ? xr : ne(xr, wrap_scalar(Scalar(int64_t(0))));
  if (dim && dim->empty()) {
    // Unlike sum, all/any over dim=() reduce nothing: the tensor as bool.
    Tensor r = to_dtype(b, od);
    return finish_out(r.same(x) ? clone(x, std::nullopt) : r, out, OutDtype::Any);
  }
  return reduce(b, dim_mask(x, dim), keepdim, k, od, out, OutDtype::Any);
}
Tensor xor_sum(const Tensor& x, IntArrayRef dims, bool keepdim) {
  const ScalarType acc = acc_dtype(ReduceKind::XorSum, x.dtype());
  return reduce(x, dim_mask(x, dims), keepdim, ReduceKind::XorSum, acc);
}

Tensor all(const Tensor& input) { return logical_reduce(input, std::nullopt, false, ReduceKind::All, nullptr); }
Tensor all(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim) {
  return logical_reduce(input, dim, keepdim, ReduceKind::All, nullptr);
}
Tensor all_out(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim, const Tensor& out) {
  return logical_reduce(input, dim, keepdim, ReduceKind::All, &out);
}
Tensor any(const Tensor& input) { return logical_reduce(input, std::nullopt, false, ReduceKind::Any, nullptr); }
Tensor any(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim) {
  return logical_reduce(input, dim, keepdim, ReduceKind::Any, nullptr);
}
Tensor any_out(const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim, const Tensor& out) {
  return logical_reduce(input, dim, keepdim, ReduceKind::Any, &out);
}
Tensor count_nonzero(const Tensor& input, std::optional<IntArrayRef> dim) {
  if (!dim) no_shell_unsigned("nonzero_count_cpu", input.dtype());  // aten counts a whole tensor in a kernel
  return sum(ne(input, wrap_scalar(Scalar(int64_t(0)))), dim, false, std::nullopt);
}

// ---- var / std ----
namespace {
// aten's std/var out= of a float16/bfloat16 input into a float32/float64 out that reduces to one
// element takes its CPU two-pass path (std_var_all_cpu), which takes float and double only.
Tensor std_var_out(const Tensor& r, const Tensor& input, const Tensor& out) {
  const bool half = input.dtype() == ScalarType::Float16 || input.dtype() == ScalarType::BFloat16;
  const bool wide_out = out.dtype() == ScalarType::Float32 || out.dtype() == ScalarType::Float64;
  if (half && wide_out && input.numel() > 0 && r.numel() <= 1) {
    fail(ErrorKind::Runtime, "std_var_all: Unsupported dtype ", legacy_name(input.dtype()));
  }
  return finish_out(r, &out);
}
// aten's std/var out= computes in out's dtype: a float input converted to a float out='s dtype
// first (a complex one to its complex counterpart), not its result rounded in its own.
Tensor std_var_input(const Tensor& input, const Tensor& out) {
  // a real input into a complex out= meets aten's kernel in out's dtype, which has no complex case
  if (input.is_floating() && is_complex(out.dtype())) dtype_not_implemented("std_cpu", out.dtype());
  if (!out.is_floating() || !is_floating_or_complex(input.dtype())) return input;
  const ScalarType dt = is_complex(input.dtype()) ? to_complex_type(out.dtype()) : out.dtype();
  return dt == input.dtype() ? input : to_dtype(input, dt);
}
}  // namespace

Tensor var(const Tensor& input, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction, bool keepdim) {
  return var_impl("var", input, dim, correction_of(correction), keepdim, false);
}
Tensor var_out(const Tensor& input, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
               bool keepdim, const Tensor& out) {
  return std_var_out(var(std_var_input(input, out), dim, correction, keepdim), input, out);
}
Tensor var(const Tensor& input, bool unbiased) {
  return var_impl("var", input, std::nullopt, unbiased ? 1 : 0, false, false);
}
Tensor var(const Tensor& input, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_impl("var", input, dim, unbiased ? 1 : 0, keepdim, false);
}
Tensor std_dev(const Tensor& input, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
               bool keepdim) {
  return var_impl("std", input, dim, correction_of(correction), keepdim, true);
}
Tensor std_dev_out(const Tensor& input, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                   bool keepdim, const Tensor& out) {
  return std_var_out(std_dev(std_var_input(input, out), dim, correction, keepdim), input, out);
}
Tensor std_dev(const Tensor& input, bool unbiased) {
  return var_impl("std", input, std::nullopt, unbiased ? 1 : 0, false, true);
}
Tensor std_dev(const Tensor& input, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_impl("std", input, dim, unbiased ? 1 : 0, keepdim, true);
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& input, std::optional<IntArrayRef> dim,
                                    const std::optional<Scalar>& correction, bool keepdim) {
  Tensor mu;
  Tensor v = var_impl("var_mean", input, dim, correction_of(correction), keepdim, false, &mu);
  return {v, mu};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& input, std::optional<IntArrayRef> dim,
                                    const std::optional<Scalar>& correction, bool keepdim) {
  Tensor mu;
  Tensor v = var_impl("std_mean", input, dim, correction_of(correction), keepdim, true, &mu);
  return {v, mu};
}

// ---- logsumexp / norms ----
// aten's logsumexp_out: a floating out= first; the sum runs in the result's dtype (an int input
// as the default float dtype, then summed into a float64 out= in float64).
static Tensor logsumexp_impl(const Tensor& input, IntArrayRef dim, bool keepdim, const Tensor* out) {
  if (out)
    EMBER_CHECK(out->is_floating(),
                "logsumexp(): Expected floating point type for result tensor, but got: ", legacy_name(out->dtype()));
  Tensor x = is_floating_or_complex(input.dtype()) ? input : to_dtype(input, default_dtype());
  const std::optional<ScalarType> acc = out ? std::optional<ScalarType>(out->dtype()) : std::nullopt;
  if (x.numel() == 0) return finish_out(log(sum(exp(x), dim, keepdim, acc)), out);
  // PyTorch 2.13 reduces dim=() as all dims (as sum does) but adds back its max kept as
  // [1, ..., 1] in place: without keepdim that is its broadcast error (not for an empty input,
  // which skips the max).
  EMBER_CHECK(!dim.empty() || keepdim || input.dim() == 0, "output with shape [] doesn't match the broadcast shape ",
              shape_str(DimVector(static_cast<size_t>(input.dim()), 1)));
  // A complex input shifts by its real parts' max (aten's; exp's modulus is exp(real)).
  Tensor m = amax(is_complex(x.dtype()) ? real(x) : x, dim, true);
  // Shift by the max, except where it is infinite (all -inf rows stay -inf).
  Tensor shift = where(isinf(m), wrap_scalar(Scalar(0.0)), m);
  Tensor r = log(sum(exp(sub(x, shift, Scalar(int64_t(1)))), dim, true, acc));
  r = add(r, shift, Scalar(int64_t(1)));
  DimMask mask = dim_mask(x, dim);
  return finish_out(drop_dims(std::move(r), mask, keepdim), out);
}
Tensor logsumexp(const Tensor& input, IntArrayRef dim, bool keepdim) {
  return logsumexp_impl(input, dim, keepdim, nullptr);
}
Tensor logsumexp_out(const Tensor& input, IntArrayRef dim, bool keepdim, const Tensor& out) {
  return logsumexp_impl(input, dim, keepdim, &out);
}

Tensor vector_norm(const Tensor& x0, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  EMBER_CHECK(is_floating_or_complex(x0.dtype()),
              "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
              legacy_name(x0.dtype()));
  if (dtype && is_complex(x0.dtype()))
    EMBER_CHECK(is_complex(*dtype), "linalg.vector_norm: dtype should be complex for complex inputs, but got ",
                legacy_name(*dtype));
  if (dtype && !is_complex(x0.dtype()))
    EMBER_CHECK(!is_complex(*dtype), "linalg.vector_norm: dtype should be real for real inputs, but got ",
                legacy_name(*dtype));
  if (dtype)
    EMBER_CHECK(promote_types(x0.dtype(), *dtype) == *dtype, "linalg.vector_norm: the dtype of the input (",
                legacy_name(x0.dtype()), ") should be convertible without narrowing to the specified dtype (",
                legacy_name(*dtype), ")");
  Tensor x = dtype ? to_dtype(x0, *dtype) : x0;
  if (is_complex(x.dtype())) return vector_norm(abs(x), ord, dim, keepdim, std::nullopt);  // the norm of |x|
  double p = ord.to_double();
  if (x.numel() == 0 && (p < 0 || p == INFINITY)) {
    // max / min / negative powers have no identity: an empty reduced dim has no answer
    if (!dim || dim->empty())
      fail(ErrorKind::Runtime, "linalg.vector_norm cannot compute the ", p,
           " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d : *dim) {
      const int64_t w = wrap_dim(d, x.dim());
      EMBER_CHECK(x.size(w) != 0, "linalg.vector_norm cannot compute the ", p, " norm on the dimension ", d,
                  "because this dimension is empty and the operation does not have an identity");
    }
  }
  DimMask m = dim_mask(x, dim, true);
  // float16/bfloat16 compute in float32 and round once: the sum of |x|^p overflows a half type
  // long before the norm does (PyTorch's opmath).
  const ScalarType rt = x.dtype();
  const ScalarType acc = (rt == ScalarType::Float16 || rt == ScalarType::BFloat16) ? ScalarType::Float32 : rt;
  // One element per slice is that element's absolute value in aten for every order but 0 (its
  // pow(pow(|x|, p), 1 / p) would round |x|^p: to 1 for a tiny p, to inf or 0 for a huge one) --
  // except a 0-d input reduced over an explicit dim 0, which takes the power form.
  const bool zero_d_dim = x.dim() == 0 && dim && !dim->empty();
  if (p != 0.0 && x.numel() > 0 && !zero_d_dim && reduced_count(x, m) == 1)
    return reduce(abs(x), m, keepdim, ReduceKind::Max, rt);
  if (p == 2.0) return to_dtype(sqrt(reduce(x, m, keepdim, ReduceKind::SumSq, acc)), rt);
  Tensor a = abs(x);
  if (x.numel() == 0) {
    int64_t out_n = 1;
    for (int64_t d = 0; d < x.dim(); ++d)
      if (!m[d]) out_n *= x.size(d);
    // Empty slices to fill: 0 for any order left (negative and infinite ones raised above),
    // a NaN order included.
    if (out_n > 0) return reduce(a, m, keepdim, ReduceKind::Sum, rt);
  }
  if (std::isinf(p)) {
    return p > 0 ? reduce(a, m, keepdim, ReduceKind::Max, rt) : reduce(a, m, keepdim, ReduceKind::Min, rt);
  }
  if (p == 0.0) return to_dtype(sum(ne(a, wrap_scalar(Scalar(0.0))), dim, keepdim, std::nullopt), rt);
  if (p == 1.0) return reduce(a, m, keepdim, ReduceKind::Sum, rt);
  Tensor s = reduce(pow(to_dtype(a, acc), wrap_scalar(Scalar(p))), m, keepdim, ReduceKind::Sum, acc);
  return to_dtype(pow(s, wrap_scalar(Scalar(1.0 / p))), rt);
}
Tensor norm(const Tensor& input, const std::optional<Scalar>& p, std::optional<IntArrayRef> dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  // p=None is PyTorch's 'fro': over more than two dims it is a matrix norm error.
  EMBER_CHECK(p || !dim || dim->size() <= 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ",
              dim ? shape_str(*dim) : std::string());
  return vector_norm(input, p ? *p : Scalar(2.0), dim, keepdim, dtype);
}

}  // namespace ember
