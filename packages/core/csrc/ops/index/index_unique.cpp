// unique / unique_consecutive, over elements or over slices along a dim.
// Sorting is a stable index sort (over a dim: aten's std::sort); NaNs sort last and never compare equal, so
// each NaN is its own value (as in PyTorch).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/index/index_advanced.h"
#include "ops/index/index_common.h"

namespace ember {

using namespace index_detail;

namespace {

template <class T>
bool is_nan_v(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return std::isnan(static_cast<float>(v));
  else return false;
}

template <class T>
bool less_v(T a, T b) {
  bool na = is_nan_v(a), nb = is_nan_v(b);
  if (na || nb) return !na && nb;
  return static_cast<opmath_t<T>>(a) < static_cast<opmath_t<T>>(b);
}

template <class T>
bool eq_v(T a, T b) {
  return static_cast<opmath_t<T>>(a) == static_cast<opmath_t<T>>(b);
}

// rows x width matrix view of x with `dim` moved first (width 1 = elementwise).
struct Rows {
  Tensor data;
  int64_t rows = 0, width = 1;
};

Rows as_rows(const Tensor& x, std::optional<int64_t> dim) {
  Rows r;
  if (!dim) {
    r.data = contiguous(reshape(x, {-1}), MemoryFormat::Contiguous);
    r.rows = x.numel();
    return r;
  }
  DimVector perm{*dim};
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != *dim) perm.push_back(d);
  r.data = contiguous(permute(x, perm), MemoryFormat::Contiguous);
  r.rows = x.sizes()[*dim];
  r.width = r.rows ? x.numel() / r.rows : 0;
  return r;
}

// Groups rows (sorted or consecutive): returns (order of first members, inverse, counts).
// by_dim: aten's unique over a dim, which sorts the slices with std::sort and plain < and >
// (a NaN compares as neither, so where NaN rows land is that sort's doing): the same call here.
std::tuple<std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>> group_rows(const Rows& r, bool sort,
                                                                                        bool by_dim) {
  std::vector<int64_t> order(r.rows), first, inverse(r.rows), counts;
  std::iota(order.begin(), order.end(), 0);
  EMBER_DISPATCH_ALL(r.data.dtype(), "unique", [&] {
    const scalar_t* p = r.data.data<scalar_t>();
    int64_t w = r.width;
    auto row_less = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < w; ++k) {
        scalar_t x = p[a * w + k], y = p[b * w + k];
        if (less_v(x, y)) return true;
        if (less_v(y, x)) return false;
      }
      return false;
    };
    auto row_eq = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < w; ++k)
        if (!eq_v(p[a * w + k], p[b * w + k])) return false;
      return true;
    };
    auto aten_less = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < w; ++k) {
        const auto x = static_cast<opmath_t<scalar_t>>(p[a * w + k]), y = static_cast<opmath_t<scalar_t>>(p[b * w + k]);
        if (x < y) return true;
        if (x > y) return false;
      }
      return false;
    };
    if (sort) {
      GilRelease nogil;
      if (by_dim) std::sort(order.begin(), order.end(), aten_less);
      else std::stable_sort(order.begin(), order.end(), row_less);
    }
    for (int64_t i = 0; i < r.rows; ++i) {
      if (i == 0 || !row_eq(order[i - 1], order[i])) {
        first.push_back(order[i]);
        counts.push_back(0);
      }
      inverse[order[i]] = static_cast<int64_t>(first.size()) - 1;
      ++counts.back();
    }
  });
  return {first, inverse, counts};
}

Tensor long_tensor(const std::vector<int64_t>& v, IntArrayRef shape) {
  Tensor t = empty(shape, ScalarType::Int64);
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique_impl(const Tensor& input, std::optional<int64_t> dim, bool consecutive) {
  std::optional<int64_t> d;
  if (dim) {
    EMBER_CHECK_INDEX(input.dim() > 0, "Dimension specified as ", *dim, " but tensor has no dimensions");
    d = wrap_dim(*dim, input.dim());
    // aten's _unique_dim_cpu_template: the zero-size dims counted, the selected one apart
    const int64_t zeros = std::count(input.sizes().begin(), input.sizes().end(), int64_t(0));
    if (input.sizes()[*d] == 0) {
      EMBER_CHECK(zeros == 1, "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    } else {
      EMBER_CHECK(zeros == 0, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
    }
  }
  Rows r = as_rows(input, d);
  auto [first, inverse, counts] = group_rows(r, !consecutive, d.has_value());
  int64_t g = static_cast<int64_t>(first.size());
  Tensor firsts = long_tensor(first, {g});
  Tensor values;
  if (d) values = index_select(input, *d, firsts);
  else values = index_select(r.data, 0, firsts);
  Tensor inv = d ? long_tensor(inverse, {r.rows}) : long_tensor(inverse, input.sizes());
  return {values, inv, long_tensor(counts, {g})};
}

// torch._VF's unique ops (ops/index.yaml; ember.unique picks their outputs as torch.unique does).
// Without dim an output not asked for is empty, as aten's; sorted is always honoured on the CPU.
namespace {
std::tuple<Tensor, Tensor, Tensor> asked(std::tuple<Tensor, Tensor, Tensor> r, bool inverse, bool counts) {
  const Device dev = std::get<0>(r).device();
  if (!inverse) std::get<1>(r) = empty({0}, ScalarType::Int64, dev);
  if (!counts) std::get<2>(r) = empty({0}, ScalarType::Int64, dev);
  return r;
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& input, bool, bool return_inverse, bool return_counts) {
  return asked(unique_impl(input, std::nullopt, false), return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& input, int64_t dim, bool, bool, bool) {
  return unique_impl(input, dim, false);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& input, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  std::tuple<Tensor, Tensor, Tensor> r = unique_impl(input, dim, true);
  return dim ? r : asked(std::move(r), return_inverse, return_counts);
}

}  // namespace ember
