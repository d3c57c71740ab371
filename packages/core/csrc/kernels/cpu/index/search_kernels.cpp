// Binning and counting kernels (kernels/backend.h, IndexKernels): searchsorted's binary search
// per value, bincount and histc. Values compare in double, which is exact for every dtype the
// comparisons see (ints up to 2^53, all floats).
#include <algorithm>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/index/index_kernels.h"

namespace ember::indexing {

void to_doubles(const Tensor& c, double* r) {
  const int64_t n = c.numel();
  EMBER_DISPATCH_ALL(c.dtype(), "searchsorted", [&] {
    const scalar_t* p = c.data<scalar_t>();
    for (int64_t i = 0; i < n; ++i) r[i] = static_cast<double>(p[i]);
  });
}

// PyTorch's binary search (l = 0, h = len; m = l + (h - l) / 2; l = m + 1 where go_right(at(m), x),
// else h = m: its comparisons !(b >= x), or !(b > x) when `right`, so a NaN value goes past every
// boundary, and its probes, which a NaN boundary makes matter) for kLanes values at once, branch
// free: bit_width(len) steps for every value (a finished lane keeps its l and h), so the lanes'
// dependent loads overlap instead of each waiting out its chain, with no mispredicted branch.
constexpr int kLanes = 8;

template <bool Right, class At>
inline void search_lanes(const At& at, int64_t len, const double* x, int64_t* result) {
  int64_t l[kLanes] = {}, h[kLanes];
  for (int j = 0; j < kLanes; ++j) h[j] = len;
  for (int64_t steps = len; steps > 0; steps >>= 1) {
    for (int j = 0; j < kLanes; ++j) {
      const int64_t m = l[j] + ((h[j] - l[j]) >> 1);
      const double b = at(j, std::min(m, len - 1));  // m = len only in a finished lane
      // all ones where the lane goes right; a finished lane (l = h = m) never does, and h = m
      // leaves it as it is. Masks, not ?: -- GCC branched on those (a mispredict per step).
      const int64_t go = -(int64_t(Right ? !(b > x[j]) : !(b >= x[j])) & int64_t(l[j] < h[j]));
      l[j] = (go & (m + 1)) | (~go & l[j]);
      h[j] = (go & h[j]) | (~go & m);
    }
  }
  for (int j = 0; j < kLanes; ++j) result[j] = l[j];
}

void searchsorted(const SearchArgs& a, const Tensor& out) {
  const int64_t nv = a.n_values, len = a.len, rows_in = a.rows_in;
  const int64_t per_row = std::max<int64_t>(rows_in > 1 ? nv / rows_in : nv, 1);
  const double *b = a.boundaries, *v = a.values;
  const int64_t* order = a.order;
  const bool right = a.right;
  EMBER_DISPATCH_INT(out.dtype(), "searchsorted", [&] {
    scalar_t* op = out.data<scalar_t>();
    parallel_for(0, nv, 4096, [&](int64_t lo, int64_t hi) {
      const double* rows[kLanes];
      const int64_t* ords[kLanes];
      double x[kLanes];
      int64_t result[kLanes];
      const auto at = [&](int j, int64_t k) { return ords[j] ? rows[j][ords[j][k]] : rows[j][k]; };
      for (int64_t i = lo; i < hi; i += kLanes) {
        const int lanes = static_cast<int>(std::min<int64_t>(kLanes, hi - i));
        for (int j = 0; j < kLanes; ++j) {  // a short last group repeats its last value
          const int64_t e = i + std::min(j, lanes - 1), row = rows_in > 1 ? e / per_row : 0;
          rows[j] = b + row * len;
          ords[j] = order ? order + row * len : nullptr;
          x[j] = v[e];
        }
        if (right) search_lanes<true>(at, len, x, result);
        else search_lanes<false>(at, len, x, result);
        for (int j = 0; j < lanes; ++j) op[i + j] = static_cast<scalar_t>(result[j]);
      }
    });
  });
}

void bincount(const Tensor& idx, const Tensor& weights, const Tensor& out) {
  const int64_t* ip = idx.data<int64_t>();
  const int64_t n = idx.numel();
  if (!weights.defined()) {
    int64_t* op = out.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) ++op[ip[i]];
    return;
  }
  auto add_all = [&](auto tag) {
    using S = decltype(tag);
    const S* wp = weights.data<S>();
    S* op = out.data<S>();
    for (int64_t i = 0; i < n; ++i) op[ip[i]] += wp[i];
  };
  if (out.dtype() == ScalarType::Float32) add_all(float{});
  else add_all(double{});
}

void histc(const double* v, int64_t n, double lo, double hi, const Tensor& out) {
  const int64_t bins = out.numel();
  std::vector<double> counts(bins, 0.0);
  EMBER_DISPATCH_FLOAT(out.dtype(), "histc", [&] {
    // PyTorch's bin arithmetic: edges and every step rounded to the input's dtype, so a value
    // near an edge lands in the same bin as there (double arithmetic moved ~1% of 0-d inputs).
    using T = scalar_t;
    using A = opmath_t<T>;
    const T l = static_cast<T>(lo), h = static_cast<T>(hi), nb = static_cast<T>(A(bins));
    const T width = static_cast<T>(A(h) - A(l));
    for (int64_t i = 0; i < n; ++i) {
      const T x = static_cast<T>(v[i]);
      if (!(A(x) >= A(l) && A(x) <= A(h))) continue;  // NaN is skipped too
      const T d = static_cast<T>(A(x) - A(l));
      const T pos = static_cast<T>(A(static_cast<T>(A(d) * A(nb))) / A(width));
      int64_t b = static_cast<int64_t>(A(pos));
      if (b >= bins) b = bins - 1;
      counts[b] += 1;
    }
    scalar_t* op = out.data<scalar_t>();
    for (int64_t i = 0; i < bins; ++i) op[i] = static_cast<scalar_t>(counts[i]);
  });
}

}  // namespace ember::indexing
