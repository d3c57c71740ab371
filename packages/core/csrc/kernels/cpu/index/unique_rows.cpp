// unique's grouping (kernels/backend.h, IndexKernels): rows sorted (or taken as they come) and
// equal neighbours grouped. Sorting is a stable index sort (over a dim: aten's std::sort); NaNs
// sort last and never compare equal, so each NaN is its own value (as in PyTorch).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/index/index_kernels.h"

namespace ember::indexing {

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

}  // namespace

// Groups rows (sorted or consecutive) into g: the first member of each group in order, each
// row's group, the group sizes.
// by_dim: aten's unique over a dim, which sorts the slices with std::sort and plain < and >
// (a NaN compares as neither, so where NaN rows land is that sort's doing): the same call here.
void unique_groups(const Tensor& data, int64_t rows, int64_t width, bool sort, bool by_dim, UniqueGroups& g) {
  std::vector<int64_t> order(rows), first, inverse(rows), counts;
  std::iota(order.begin(), order.end(), 0);
  EMBER_DISPATCH_ALL_AND_UINT(data.dtype(), "unique", [&] {
    const scalar_t* p = data.data<scalar_t>();
    int64_t w = width;
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
    for (int64_t i = 0; i < rows; ++i) {
      if (i == 0 || !row_eq(order[i - 1], order[i])) {
        first.push_back(order[i]);
        counts.push_back(0);
      }
      inverse[order[i]] = static_cast<int64_t>(first.size()) - 1;
      ++counts.back();
    }
  });
  g.first = std::move(first);
  g.inverse = std::move(inverse);
  g.counts = std::move(counts);
}

}  // namespace ember::indexing
