// Sorting and selection along a dim: sort, argsort, msort, topk, kthvalue, median,
// nanmedian, mode. NaN orders as the largest value (PyTorch's rule). Each op moves `dim`
// last, works on contiguous rows in parallel (GIL released), and moves the result back.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <queue>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "iter/elementwise_iter.h"
#include "ops.h"
#include "ops/core/internal.h"

namespace ember {

namespace {

template <class V>
inline bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>) return std::isnan(v);
  return false;
}
// Ascending order with NaN last; descending with NaN first.
template <class V>
struct Less {
  bool operator()(V a, V b) const { return (!is_nan(a) && is_nan(b)) || a < b; }
};
template <class V>
struct Greater {
  bool operator()(V a, V b) const { return (is_nan(a) && !is_nan(b)) || a > b; }
};

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

int64_t row_grain(int64_t n) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)); }

// Rows are sorted as (key, index) pairs: keys are the op-math value (float for half types).
template <class scalar_t>
using Key = opmath_t<scalar_t>;

// Order-preserving unsigned keys for LSD radix sort: NaN maps above +inf, -0.0 to +0.0
// (they compare equal, so a stable sort keeps their order), signed ints get the sign flipped.
template <class scalar_t>
struct RadixKey;
template <>
struct RadixKey<float> {
  using K = uint32_t;
  static K get(float v) {
    if (std::isnan(v)) return ~K(0);
    if (v == 0.0f) v = 0.0f;
    K b;
    std::memcpy(&b, &v, sizeof b);
    return (b >> 31) ? ~b : (b | (K(1) << 31));
  }
};
template <>
struct RadixKey<double> {
  using K = uint64_t;
  static K get(double v) {
    if (std::isnan(v)) return ~K(0);
    if (v == 0.0) v = 0.0;
    K b;
    std::memcpy(&b, &v, sizeof b);
    return (b >> 63) ? ~b : (b | (K(1) << 63));
  }
};
template <>
struct RadixKey<int32_t> {
  using K = uint32_t;
  static K get(int32_t v) { return static_cast<K>(v) ^ (K(1) << 31); }
};
template <>
struct RadixKey<int64_t> {
  using K = uint64_t;
  static K get(int64_t v) { return static_cast<K>(v) ^ (K(1) << 63); }
};

// Stable LSD radix sort of one row, 8 bits a pass (passes where every key shares the byte
// are skipped). `idx` receives the sorted order; the buffers are reused across rows.
template <class scalar_t>
void radix_row(const scalar_t* s, int64_t n, bool descending, int64_t* idx,
               std::vector<typename RadixKey<scalar_t>::K>& k0, std::vector<typename RadixKey<scalar_t>::K>& k1,
               std::vector<int64_t>& i1) {
  using K = typename RadixKey<scalar_t>::K;
  k0.resize(static_cast<size_t>(n));
  k1.resize(static_cast<size_t>(n));
  i1.resize(static_cast<size_t>(n));
  K flip = descending ? ~K(0) : K(0);
  for (int64_t i = 0; i < n; ++i) {
    k0[i] = RadixKey<scalar_t>::get(s[i]) ^ flip;
    idx[i] = i;
  }
  K* ka = k0.data();
  K* kb = k1.data();
  int64_t* ia = idx;
  int64_t* ib = i1.data();
  for (size_t shift = 0; shift < sizeof(K) * 8; shift += 8) {
    int64_t count[256] = {0};
    for (int64_t i = 0; i < n; ++i) ++count[(ka[i] >> shift) & 0xff];
    if (count[(ka[0] >> shift) & 0xff] == n) continue;  // all keys share this byte
    int64_t at = 0;
    for (int64_t& c : count) {
      int64_t t = c;
      c = at;
      at += t;
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t p = count[(ka[i] >> shift) & 0xff]++;
      kb[p] = ka[i];
      ib[p] = ia[i];
    }
    std::swap(ka, kb);
    std::swap(ia, ib);
  }
  if (ia != idx) std::memcpy(idx, ia, static_cast<size_t>(n) * sizeof(int64_t));
}

template <class scalar_t>
constexpr bool kRadix = std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double> ||
                        std::is_same_v<scalar_t, int32_t> || std::is_same_v<scalar_t, int64_t>;

template <class scalar_t>
void sort_rows(const Rows& R, Tensor& values, Tensor& indices, bool descending) {
  using V = Key<scalar_t>;
  const scalar_t* src = R.data.template data<scalar_t>();
  scalar_t* vo = values.template data<scalar_t>();
  int64_t* io = indices.template data<int64_t>();
  int64_t n = R.n;
  GilRelease nogil;
  if constexpr (kRadix<scalar_t>) {
    if (n >= 64) {
      parallel_for(0, R.rows, row_grain(n), [&](int64_t b, int64_t e) {
        std::vector<typename RadixKey<scalar_t>::K> k0, k1;
        std::vector<int64_t> i1;
        for (int64_t r = b; r < e; ++r) {
          const scalar_t* s = src + r * n;
          int64_t* ir = io + r * n;
          radix_row(s, n, descending, ir, k0, k1, i1);
          scalar_t* vr = vo + r * n;
          for (int64_t i = 0; i < n; ++i) vr[i] = s[ir[i]];
        }
      });
      return;
    }
  }
  parallel_for(0, R.rows, row_grain(n), [&](int64_t b, int64_t e) {
    std::vector<std::pair<V, int64_t>> buf(static_cast<size_t>(n));
    for (int64_t r = b; r < e; ++r) {
      const scalar_t* s = src + r * n;
      for (int64_t i = 0; i < n; ++i) buf[i] = {static_cast<V>(s[i]), i};
      if (descending) {
        std::stable_sort(buf.begin(), buf.end(),
                         [](const auto& a, const auto& c) { return Greater<V>()(a.first, c.first); });
      } else {
        std::stable_sort(buf.begin(), buf.end(),
                         [](const auto& a, const auto& c) { return Less<V>()(a.first, c.first); });
      }
      for (int64_t i = 0; i < n; ++i) {
        vo[r * n + i] = s[buf[i].second];
        io[r * n + i] = buf[i].second;
      }
    }
  });
}

std::tuple<Tensor, Tensor> sort_impl(const Tensor& input, int64_t dim, bool descending) {
  Rows R = make_rows(input, dim);
  DimVector shape = input.dim() == 0 ? DimVector{1} : with_last(input, R.d, R.n);
  Tensor v = empty(shape, input.dtype()), i = empty(shape, ScalarType::Int64);
  EMBER_DISPATCH_ALL(input.dtype(), "sort", [&] { sort_rows<scalar_t>(R, v, i, descending); });
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

// aten's selection, call for call: the same standard algorithms on the same (value, index)
// sequence with the same comparator, so that tied values come out with aten's indices (which
// tie wins is up to the algorithm, not a rule). k * 64 <= n: a partial sort of the row; else
// nth_element at k - 1, then (sorted) a sort of the k - 1 before it.
template <class scalar_t>
void topk_rows(const Rows& R, int64_t k, bool largest, bool sorted, Tensor& values, Tensor& indices) {
  using P = std::pair<Key<scalar_t>, int64_t>;
  const scalar_t* src = R.data.template data<scalar_t>();
  scalar_t* vo = values.template data<scalar_t>();
  int64_t* io = indices.template data<int64_t>();
  const int64_t n = R.n;
  GilRelease nogil;
  parallel_for(0, R.rows, row_grain(n), [&](int64_t b, int64_t e) {
    std::vector<P> q(static_cast<size_t>(n));
    auto run = [&](auto cmp) {
      for (int64_t r = b; r < e; ++r) {
        const scalar_t* s = src + r * n;
        for (int64_t i = 0; i < n; ++i) q[i] = {static_cast<Key<scalar_t>>(s[i]), i};
        if (k * 64 <= n) {
          std::partial_sort(q.begin(), q.begin() + k, q.end(), cmp);
        } else {
          std::nth_element(q.begin(), q.begin() + (k - 1), q.end(), cmp);
          if (sorted) std::sort(q.begin(), q.begin() + (k - 1), cmp);
        }
        for (int64_t i = 0; i < k; ++i) {
          vo[r * k + i] = static_cast<scalar_t>(q[i].first);
          io[r * k + i] = q[i].second;
        }
      }
    };
    if (largest) run([](const P& x, const P& y) { return Greater<Key<scalar_t>>()(x.first, y.first); });
    else run([](const P& x, const P& y) { return Less<Key<scalar_t>>()(x.first, y.first); });
  });
}

std::tuple<Tensor, Tensor> topk_impl(const Tensor& input, int64_t k, int64_t dim, bool largest, bool sorted) {
  Rows R = make_rows(input, dim);
  EMBER_CHECK(k >= 0 && k <= R.n, "selected index k out of range");
  EMBER_CHECK(input.dtype() != ScalarType::Bool, "topk does not support bool dtypes on CPU");
  // PyTorch copies a 0-d input whatever k (0 or 1) is.
  if (input.dim() == 0) return {clone(input, std::nullopt), zeros({}, ScalarType::Int64, std::nullopt)};
  DimVector shape = input.dim() == 0 ? DimVector{k} : with_last(input, R.d, k);
  Tensor v = empty(shape, input.dtype()), i = empty(shape, ScalarType::Int64);
  if (k > 0) EMBER_DISPATCH_ALL(input.dtype(), "topk", [&] { topk_rows<scalar_t>(R, k, largest, sorted, v, i); });
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

enum class Select { Kth, Median, NanMedian, Mode };

// Median-of-three quickselect (Numerical Recipes' `select`), NaN as the largest value: the
// selection scheme PyTorch's kthvalue uses, so equal values yield the same index. Returns
// the original index of the k-th smallest (0-based).
template <class V>
int64_t quick_select(std::vector<std::pair<V, int64_t>>& a, int64_t k) {
  auto gt = [](V x, V y) { return Greater<V>()(x, y) && !(is_nan(x) && is_nan(y)); };
  int64_t L = 0, R = static_cast<int64_t>(a.size()) - 1;
  while (true) {
    if (R <= L) break;
    if (R == L + 1) {
      if (gt(a[L].first, a[R].first)) std::swap(a[L], a[R]);
      break;
    }
    int64_t P = L + (R - L) / 2;
    std::swap(a[P], a[L + 1]);
    if (gt(a[L + 1].first, a[R].first)) std::swap(a[L + 1], a[R]);
    if (gt(a[L].first, a[R].first)) std::swap(a[L], a[R]);
    if (gt(a[L + 1].first, a[L].first)) std::swap(a[L + 1], a[L]);
    int64_t i = L + 1, j = R;
    V piv = a[L].first;
    while (true) {
      do ++i;
      while (gt(piv, a[i].first));
      do --j;
      while (gt(a[j].first, piv));
      if (j < i) break;
      std::swap(a[i], a[j]);
    }
    std::swap(a[L], a[j]);
    if (j <= k) L = i;
    if (j >= k) R = j - 1;
  }
  return a[k].second;
}

template <class scalar_t>
void select_rows(const Rows& R, Select what, int64_t k, Tensor& values, Tensor& indices) {
  using V = Key<scalar_t>;
  const scalar_t* src = R.data.template data<scalar_t>();
  scalar_t* vo = values.template data<scalar_t>();
  int64_t* io = indices.template data<int64_t>();
  int64_t n = R.n;
  GilRelease nogil;
  parallel_for(0, R.rows, row_grain(n), [&](int64_t b, int64_t e) {
    std::vector<std::pair<V, int64_t>> buf(static_cast<size_t>(n));
    for (int64_t r = b; r < e; ++r) {
      const scalar_t* s = src + r * n;
      int64_t first_nan = -1, nans = 0;
      for (int64_t i = 0; i < n; ++i) {
        buf[i] = {static_cast<V>(s[i]), i};
        if (is_nan(buf[i].first)) {
          if (first_nan < 0) first_nan = i;
          ++nans;
        }
      }
      int64_t pick = -1;
      if (what == Select::Mode) {
        // PyTorch's tie rules follow from an unstable sort with plain `<` then a scan for the
        // longest run (the first longest, reporting its last element): the same sort and scan
        // give the same picks, NaN included (each NaN is a run of its own).
        std::sort(buf.begin(), buf.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
        int64_t best = 0, run = 0;
        for (int64_t i = 0; i < n; ++i) {
          ++run;
          if (i == n - 1 || buf[i].first != buf[i + 1].first) {
            if (run > best) {
              best = run;
              pick = buf[i].second;
            }
            run = 0;
          }
        }
      } else if (what == Select::Median && nans > 0) {
        pick = first_nan;
      } else if (what == Select::NanMedian && nans == n) {
        pick = first_nan;
      } else if (what == Select::Kth) {
        pick = quick_select(buf, k - 1);
      } else {
        // Median: the k-th in (value, index) order, so ties resolve to a fixed index.
        int64_t kk = ((what == Select::NanMedian ? n - nans : n) - 1) / 2;
        std::nth_element(buf.begin(), buf.begin() + kk, buf.end(), [](const auto& a, const auto& c) {
          return Less<V>()(a.first, c.first) || (!Less<V>()(c.first, a.first) && a.second < c.second);
        });
        pick = buf[kk].second;
      }
      vo[r] = s[pick];
      io[r] = pick;
    }
  });
}

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
  DimVector shape = input.dim() == 0 ? DimVector{} : with_last(input, R.d, -1);
  Tensor v = empty(shape, input.dtype()), i = empty(shape, ScalarType::Int64);
  if (input.dim() == 0) {
    v = clone(input, std::nullopt);
    i = zeros({}, ScalarType::Int64, std::nullopt);
    return {v, i};
  }
  if (R.rows > 0) EMBER_DISPATCH_ALL(input.dtype(), op, [&] { select_rows<scalar_t>(R, what, k, v, i); });
  return {restore(v, input, R.d, false, keepdim), restore(i, input, R.d, false, keepdim)};
}

// median() / nanmedian() over every element. An empty input gives NaN cast to its dtype, as
// PyTorch does (full(NaN).to(dtype): True for bool, INT_MIN for int32/int64, 0 for narrower ints).
Tensor global_median(const char* op, const Tensor& input, Select what) {
  if (input.numel() == 0)
    return to_dtype(full({}, Scalar(double(NAN)), ScalarType::Float32, std::nullopt), input.dtype());
  if (input.dtype() == ScalarType::Bool) dtype_not_implemented("median_cpu", input.dtype());
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
