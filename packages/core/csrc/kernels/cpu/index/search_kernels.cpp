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

void searchsorted(const SearchArgs& a, const Tensor& out) {
  const int64_t nv = a.n_values, len = a.len, rows_in = a.rows_in;
  const int64_t per_row = rows_in > 1 ? nv / rows_in : nv;
  const double *b = a.boundaries, *v = a.values;
  const int64_t* order = a.order;
  const bool right = a.right;
  EMBER_DISPATCH_INT(out.dtype(), "searchsorted", [&] {
    scalar_t* op = out.data<scalar_t>();
    parallel_for(0, nv, 4096, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        int64_t row = rows_in > 1 ? i / std::max<int64_t>(per_row, 1) : 0;
        const double* base = b + row * len;
        const int64_t* ord = order ? order + row * len : nullptr;
        auto at = [&](int64_t k) { return ord ? base[ord[k]] : base[k]; };
        int64_t l = 0, h = len;
        double x = v[i];
        while (l < h) {
          int64_t m = l + (h - l) / 2;
          // PyTorch's comparisons: a NaN value goes past every boundary (index len).
          bool go_right = right ? !(at(m) > x) : !(at(m) >= x);
          if (go_right) l = m + 1;
          else h = m;
        }
        op[i] = static_cast<scalar_t>(l);
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
