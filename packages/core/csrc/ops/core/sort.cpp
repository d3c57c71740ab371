// Sorting and selection along a dim: sort, argsort, msort, topk, kthvalue, median,
// nanmedian, mode. NaN orders as the largest value (PyTorch's rule). Each op moves `dim`
// last, has the backend's sort kernels (kernels/cpu/sort) work on the contiguous rows, and
// moves the result back.
#include <cmath>
#include <cstring>
#include <numeric>
#include <queue>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/internal.h"

namespace ember {

namespace {

// Rows of `x` along dim as a contiguous (rows, n) block, dim moved last.
struct Rows {
  Tensor data;  // contiguous, dim last
  int64_t d = 0, n = 1, rows = 1;
};

Rows make_rows(const Tensor& x, int64_t dim) {
  Rows r;
  if (x.dim() == 0) {
    wrap_dim(dim, 1);
    r.data = reshape(x, {1});
    return r;
  }
  r.d = wrap_dim(dim, x.dim());
  r.n = x.size(r.d);
  r.rows = r.n == 0 ? 0 : x.numel() / r.n;
  Tensor m = r.d == x.dim() - 1 ? x : movedim_int(x, r.d, -1);
  r.data = contiguous(m, MemoryFormat::Contiguous);
  return r;
}

// Move a (…, k) result computed with dim last back into place (contiguous).
Tensor restore(const Tensor& t, const Tensor& x, int64_t d, bool keep_dim_axis, bool keepdim) {
  if (x.dim() == 0) return reshape(t, {});
  if (!keep_dim_axis) {  // reductions: the last axis is gone
    return keepdim ? contiguous(unsqueeze(t, d), MemoryFormat::Contiguous) : t;
  }
  if (d == x.dim() - 1) return t;
  return contiguous(movedim_int(t, -1, d), MemoryFormat::Contiguous);
}

DimVector with_last(const Tensor& x, int64_t d, int64_t k) {
  DimVector s;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (i != d) s.push_back(x.size(i));
  if (k >= 0) s.push_back(k);
  return s;
}

std::tuple<Tensor, Tensor> sort_impl(const Tensor& input, int64_t dim, bool descending) {
  Rows R = make_rows(input, dim);  // the dim first: aten's meta wraps it
  EMBER_CHECK(!is_complex(input.dtype()), " Sort does not support complex dtypes on CPU");  // aten's text
  DimVector shape = input.dim() == 0 ? DimVector{1} : with_last(input, R.d, R.n);
  Tensor v = empty(shape, input.dtype(), input.device()), i = empty(shape, ScalarType::Int64, input.device());
  backend(input).sort.sort(R.data, R.rows, R.n, descending, v, i);
  return {restore(v, input, R.d, true, false), restore(i, input, R.d, true, false)};
}

void write_out(const Tensor& out, const Tensor& r) {
  resize_out(out, r.sizes());
  copy_(out, r, false);
  out.bump_version();
}

void check_out_dtypes(const char* op, const Tensor& input, const Tensor& values, const Tensor& indices) {
  EMBER_CHECK(values.dtype() == input.dtype(), op, "(): Expected out tensor to have dtype ", dtype_name(input.dtype()),
              ", but got ", dtype_name(values.dtype()), " instead");
  EMBER_CHECK(indices.dtype() == ScalarType::Int64, op, "(): Expected out tensor to have dtype int64, but got ",
              dtype_name(indices.dtype()), " instead");
}

std::tuple<Tensor, Tensor> tuple_out(const char* op, const Tensor& input, std::tuple<Tensor, Tensor> r,
                                     const Tensor& values, const Tensor& indices) {
  check_out_dtypes(op, input, values, indices);
  check_no_partial_overlap(values, input);
  check_no_partial_overlap(indices, input);
  write_out(values, std::get<0>(r));
  write_out(indices, std::get<1>(r));
  return {values, indices};
}

}  // namespace

// ---- sort / argsort / msort ----

std::tuple<Tensor, Tensor> sort(const Tensor& input, int64_t dim, bool descending) {
  return sort_impl(input, dim, descending);
}
// Every sort here is stable, so `stable` changes nothing.
std::tuple<Tensor, Tensor> sort(const Tensor& input, std::optional<bool> stable, int64_t dim, bool descending) {
  (void)stable;
  return sort_impl(input, dim, descending);
}
std::tuple<Tensor, Tensor> sort_out(const Tensor& input, int64_t dim, bool descending, const Tensor& values,
                                    const Tensor& indices) {
  return tuple_out("sort", input, sort_impl(input, dim, descending), values, indices);
}
std::tuple<Tensor, Tensor> sort_out(const Tensor& input, std::optional<bool> stable, int64_t dim, bool descending,
                                    const Tensor& values, const Tensor& indices) {
  (void)stable;
  return tuple_out("sort", input, sort_impl(input, dim, descending), values, indices);
}
Tensor argsort(const Tensor& input, int64_t dim, bool descending) {
  return std::get<1>(sort_impl(input, dim, descending));
}
Tensor argsort(const Tensor& input, bool stable, int64_t dim, bool descending) {
  (void)stable;
  return std::get<1>(sort_impl(input, dim, descending));
}
Tensor msort(const Tensor& input) { return std::get<0>(sort_impl(input, 0, false)); }
Tensor msort_out(const Tensor& input, const Tensor& out) {
  EMBER_CHECK(out.dtype() == input.dtype(), "msort(): Expected out tensor to have dtype ", dtype_name(input.dtype()),
              ", but got ", dtype_name(out.dtype()), " instead");
  write_out(out, msort(input));
  return out;
}

// ---- topk ----

namespace {

std::tuple<Tensor, Tensor> topk_impl(const Tensor& input, int64_t k, int64_t dim, bool largest, bool sorted) {
  Rows R = make_rows(input, dim);
  EMBER_CHECK(k >= 0 && k <= R.n, "selected index k out of range");
  EMBER_CHECK(input.dtype() != ScalarType::Bool, "topk does not support bool dtypes on CPU");
  EMBER_CHECK(!is_complex(input.dtype()), " topk does not support complex dtypes on CPU");  // aten's text
  // PyTorch copies a 0-d input whatever k (0 or 1) is.
  if (input.dim() == 0) return {clone(input, std::nullopt), zeros({}, ScalarType::Int64, input.device())};
  DimVector shape = input.dim() == 0 ? DimVector{k} : with_last(input, R.d, k);
  Tensor v = empty(shape, input.dtype(), input.device()), i = empty(shape, ScalarType::Int64, input.device());
  if (k > 0) backend(input).sort.topk(R.data, R.rows, R.n, k, largest, sorted, v, i);
  return {restore(v, input, R.d, true, false), restore(i, input, R.d, true, false)};
}

}  // namespace

// `sorted=False` leaves the k in aten's selection order (see topk_rows).
std::tuple<Tensor, Tensor> topk(const Tensor& input, int64_t k, int64_t dim, bool largest, bool sorted) {
  return topk_impl(input, k, dim, largest, sorted);
}
std::tuple<Tensor, Tensor> topk_out(const Tensor& input, int64_t k, int64_t dim, bool largest, bool sorted,
                                    const Tensor& values, const Tensor& indices) {
  return tuple_out("topk", input, topk_impl(input, k, dim, largest, sorted), values, indices);
}

// ---- kthvalue / median / nanmedian / mode: one value per row ----

namespace {

using Select = SelectKind;

// THTensor's names, which aten's checkScalarType words its median out= errors with.
std::string legacy_tensor_name(ScalarType t) {
  const std::string n = legacy_name(t);
  const bool old = t == ScalarType::Float32 || t == ScalarType::Float64 || t == ScalarType::Float16 ||
                   t == ScalarType::Int64 || t == ScalarType::Int32 || t == ScalarType::Int16 ||
                   t == ScalarType::Int8 || t == ScalarType::UInt8;
  return old ? "torch." + n + "Tensor" : "CPU" + n + "Type";
}

// The out= dtypes of kthvalue / median / nanmedian, checked where aten does: after the empty
// dim and k, before the dtype dispatch.
void check_select_outs(Select what, const Tensor& input, const Tensor* values, const Tensor* indices) {
  if (values == nullptr) return;
  if (what == Select::Kth) {
    EMBER_CHECK(values->dtype() == input.dtype(), "output values must be of same type as input");
    EMBER_CHECK(indices->dtype() == ScalarType::Int64, "output indices must be of scalar type Long");
    return;
  }
  EMBER_CHECK(indices->dtype() == ScalarType::Int64,
              "Expected tensor for argument #1 'indices' to have scalar type Long; but got ",
              legacy_tensor_name(indices->dtype()), " instead (while checking arguments for median)");
  EMBER_CHECK(values->dtype() == input.dtype(),
              "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type ",
              legacy_tensor_name(values->dtype()), " does not equal ", legacy_tensor_name(input.dtype()),
              " (while checking arguments for median)");
}

std::tuple<Tensor, Tensor> select_impl(const char* op, const Tensor& input, Select what, int64_t k, int64_t dim,
                                       bool keepdim, const Tensor* values = nullptr, const Tensor* indices = nullptr) {
  Rows R = make_rows(input, dim);
  // PyTorch's order: empty reduction dim (IndexError; nanmedian reports as median), k, then the
  // dtype dispatch, which a 0-d kthvalue / mode skips and a 0-d median does not.
  const char* shown = what == Select::NanMedian ? "median" : op;
  EMBER_CHECK_INDEX(R.n > 0, shown, "(): Expected reduction dim ", R.d, " to have non-zero size.");
  if (what == Select::Kth)
    EMBER_CHECK(k >= 1 && k <= R.n, "kthvalue(): selected number k out of range for dimension ", R.d);
  check_select_outs(what, input, values, indices);
  const bool bool_ok = what == Select::Mode || (input.dim() == 0 && what == Select::Kth);
  if (input.dtype() == ScalarType::Bool && !bool_ok)
    dtype_not_implemented(what == Select::Kth ? "kthvalue_cpu" : "median_out", input.dtype());
  // no kernel sorts complex: aten's dispatch refuses it where it runs (a 0-d kthvalue / mode, an
  // empty mode skip theirs)
  if (is_complex(input.dtype())) {
    if (what == Select::Median || what == Select::NanMedian) dtype_not_implemented("median_out", input.dtype());
    if (what == Select::Kth && input.dim() > 0) dtype_not_implemented("kthvalue_cpu", input.dtype());
    if (what == Select::Mode && input.numel() > 0 && input.dim() > 0) dtype_not_implemented("mode_cpu", input.dtype());
  }
  DimVector shape = input.dim() == 0 ? DimVector{} : with_last(input, R.d, -1);
  Tensor v = empty(shape, input.dtype(), input.device()), i = empty(shape, ScalarType::Int64, input.device());
  if (input.dim() == 0) {
    v = clone(input, std::nullopt);
    i = zeros({}, ScalarType::Int64, input.device());
    return {v, i};
  }
  if (R.rows > 0) backend(input).sort.select(R.data, R.rows, R.n, what, k, op, v, i);
  return {restore(v, input, R.d, false, keepdim), restore(i, input, R.d, false, keepdim)};
}

// median() / nanmedian() over every element. An empty input gives NaN cast to its dtype, as
// PyTorch does (full(NaN).to(dtype): True for bool, INT_MIN for int32/int64, 0 for narrower ints).
Tensor global_median(const char* op, const Tensor& input, Select what) {
  if (input.numel() == 0)
    return to_dtype(full({}, Scalar(double(NAN)), ScalarType::Float32, input.device()), input.dtype());
  if (input.dtype() == ScalarType::Bool || is_complex(input.dtype()))
    dtype_not_implemented("median_cpu", input.dtype());
  return std::get<0>(select_impl(op, reshape(input, {-1}), what, 0, 0, false));
}

}  // namespace

std::tuple<Tensor, Tensor> kthvalue(const Tensor& input, int64_t k, int64_t dim, bool keepdim) {
  return select_impl("kthvalue", input, Select::Kth, k, dim, keepdim);
}
std::tuple<Tensor, Tensor> kthvalue_out(const Tensor& input, int64_t k, int64_t dim, bool keepdim, const Tensor& values,
                                        const Tensor& indices) {
  return tuple_out("kthvalue", input, select_impl("kthvalue", input, Select::Kth, k, dim, keepdim, &values, &indices),
                   values, indices);
}
Tensor median(const Tensor& input) { return global_median("median", input, Select::Median); }
std::tuple<Tensor, Tensor> median(const Tensor& input, int64_t dim, bool keepdim) {
  return select_impl("median", input, Select::Median, 0, dim, keepdim);
}
std::tuple<Tensor, Tensor> median_out(const Tensor& input, int64_t dim, bool keepdim, const Tensor& values,
                                      const Tensor& indices) {
  return tuple_out("median", input, select_impl("median", input, Select::Median, 0, dim, keepdim, &values, &indices),
                   values, indices);
}
Tensor nanmedian(const Tensor& input) { return global_median("nanmedian", input, Select::NanMedian); }
std::tuple<Tensor, Tensor> nanmedian(const Tensor& input, int64_t dim, bool keepdim) {
  return select_impl("nanmedian", input, Select::NanMedian, 0, dim, keepdim);
}
std::tuple<Tensor, Tensor> nanmedian_out(const Tensor& input, int64_t dim, bool keepdim, const Tensor& values,
                                         const Tensor& indices) {
  return tuple_out("nanmedian", input,
                   select_impl("nanmedian", input, Select::NanMedian, 0, dim, keepdim, &values, &indices), values,
                   indices);
}
std::tuple<Tensor, Tensor> mode(const Tensor& input, int64_t dim, bool keepdim) {
  return select_impl("mode", input, Select::Mode, 0, dim, keepdim);
}
std::tuple<Tensor, Tensor> mode_out(const Tensor& input, int64_t dim, bool keepdim, const Tensor& values,
                                    const Tensor& indices) {
  // aten's mode_out checks its outputs' dtypes before the dim (and its words differ).
  EMBER_CHECK(values.dtype() == input.dtype(), "expected scalar type '", legacy_name(input.dtype()), "' but got '",
              legacy_name(values.dtype()), "' for values output");
  EMBER_CHECK(indices.dtype() == ScalarType::Int64, "expected scalar type 'Long' but got '",
              legacy_name(indices.dtype()), "' for indices output");
  return tuple_out("mode", input, mode(input, dim, keepdim), values, indices);
}

}  // namespace ember
