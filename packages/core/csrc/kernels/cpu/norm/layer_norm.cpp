// Layer norm over the trailing n elements of each row: forward, and one backward pass that
// makes d(input) and the weight / bias column sums together (x and grad read once).
// Row sums: blocked_sum. Row kernels are compiled for AVX-512 and AVX2 as well and picked at
// run time. The op bodies are ops/nn/nn_layer_norm.cpp.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/isa_variants.h"
#include "kernels/cpu/norm/norm_kernels.h"
#include "kernels/cpu/norm/row_sums.h"

namespace ember::norms {

namespace {

// Rows r0..r1 of one pass. w / b always point at n op-math values (ones / zeros when absent;
// float32 parameters of a half-type input, aten's mixed type, read as they are).
template <class T>
struct Rows {
  int64_t n;
  double eps;
  const T* x;
  const opmath_t<T>*w, *b;
  const T* g;
  T *y, *dx;
  opmath_t<T>*dw, *db;  // this chunk's column sums (backward), nullptr when not wanted
};

// 1 / sqrt(var + eps) of a row whose squared deviations overflow (|x| past 1e154 in double, 1e19
// in float): the deviations scaled by 2^-e, e the exponent of the row's largest |x|, so rstd is
// the finite 1 / sqrt(var) it stands for, not 0 (aten: 0 or NaN, known-wrong layer-norm-overflow).
template <class T>
[[gnu::noinline]] double overflowed_rstd(const T* x, int64_t n, double mean, double eps) {
  double big = std::abs(mean);
  for (int64_t j = 0; j < n; ++j) big = std::max(big, std::abs(static_cast<double>(static_cast<opmath_t<T>>(x[j]))));
  int e = 0;
  std::frexp(big, &e);
  const double m = std::ldexp(mean, -e);
  double s = 0;
  for (int64_t j = 0; j < n; ++j) {
    const double d = std::ldexp(static_cast<double>(static_cast<opmath_t<T>>(x[j])), -e) - m;
    s += d * d;
  }
  return std::ldexp(1.0 / std::sqrt(s / static_cast<double>(n) + std::ldexp(eps, -2 * e)), -e);
}

template <class T>
EMBER_VEC_INLINE void row_stats(const T* x, int64_t n, double eps, opmath_t<T>& mu, opmath_t<T>& rs) {
  using A = opmath_t<T>;
  // float rows summed in double: a constant row's mean is then exactly its value (aten's Welford
  // moments keep it so), not 5 * c / 5 rounded, which made (x - mean) * rstd 1e-5 instead of 0
  using MeanAcc = std::conditional_t<std::is_same_v<T, float>, double, A>;
  const double mean =
      blocked_sum<MeanAcc>(n, [&](int64_t j) { return static_cast<MeanAcc>(x[j]); }) / static_cast<double>(n);
  const A m = static_cast<A>(mean);
  const double var = blocked_sum<A>(n,
                                    [&](int64_t j) {
                                      A d = static_cast<A>(x[j]) - m;
                                      return d * d;
                                    }) /
                     static_cast<double>(n);
  mu = m;
  rs = static_cast<A>(std::isinf(var) && std::isfinite(static_cast<double>(m)) ? overflowed_rstd(x, n, m, eps)
                                                                               : 1.0 / std::sqrt(var + eps));
}

template <class T>
EMBER_VEC_INLINE void forward_rows(const Rows<T>& p, int64_t r0, int64_t r1) {
  using A = opmath_t<T>;
  const int64_t n = p.n;
  for (int64_t r = r0; r < r1; ++r) {
    const T* x = p.x + r * n;
    T* y = p.y + r * n;
    A mu, rs;
    row_stats(x, n, p.eps, mu, rs);
#pragma omp simd
    for (int64_t j = 0; j < n; ++j)
      y[j] = static_cast<T>((static_cast<A>(x[j]) - mu) * rs * static_cast<A>(p.w[j]) + static_cast<A>(p.b[j]));
  }
}

template <class T>
EMBER_VEC_INLINE void backward_rows(const Rows<T>& p, int64_t r0, int64_t r1) {
  using A = opmath_t<T>;
  const int64_t n = p.n;
  const A inv_n = A(1) / static_cast<A>(n);
  for (int64_t r = r0; r < r1; ++r) {
    const T *x = p.x + r * n, *g = p.g + r * n;
    const A* w = p.w;
    A mu, rs;
    row_stats(x, n, p.eps, mu, rs);
    if (p.dx) {
      // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), dxhat = g * w
      const A c1 =
          static_cast<A>(blocked_sum<A>(n, [&](int64_t j) { return static_cast<A>(g[j]) * static_cast<A>(w[j]); })) *
          inv_n;
      const A c2 = static_cast<A>(blocked_sum<A>(n,
                                                 [&](int64_t j) {
                                                   return static_cast<A>(g[j]) * static_cast<A>(w[j]) *
                                                          (static_cast<A>(x[j]) - mu) * rs;
                                                 })) *
                   inv_n;
      T* dx = p.dx + r * n;
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) {
        const A xh = (static_cast<A>(x[j]) - mu) * rs;
        dx[j] = static_cast<T>(rs * (static_cast<A>(g[j]) * static_cast<A>(w[j]) - c1 - xh * c2));
      }
    }
    if (p.dw) {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) p.dw[j] += static_cast<A>(g[j]) * (static_cast<A>(x[j]) - mu) * rs;
    }
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) p.db[j] += static_cast<A>(g[j]);
  }
}

EMBER_ISA_VARIANTS(forward_rows, Rows)
EMBER_ISA_VARIANTS(backward_rows, Rows)

}  // namespace

void layer_forward(const Tensor& x, const Tensor& y, int64_t m, int64_t n, double eps, const void* w, const void* b) {
  EMBER_DISPATCH_FLOAT(x.dtype(), "LayerNormKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    Rows<scalar_t> p{n,
                     eps,
                     x.data<scalar_t>(),
                     static_cast<const A*>(w),
                     static_cast<const A*>(b),
                     nullptr,
                     y.data<scalar_t>(),
                     nullptr,
                     nullptr,
                     nullptr};
    auto fn = forward_rows_best<scalar_t>();
    GilRelease nogil;
    parallel_for(0, m, row_grain(n), [&](int64_t r0, int64_t r1) { fn(p, r0, r1); });
  });
}

void layer_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw_out, const Tensor& db_out,
                    int64_t m, int64_t n, double eps, const void* w) {
  EMBER_DISPATCH_FLOAT(x.dtype(), "LayerNormBackwardKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    const bool want_dw = dw_out.defined();
    std::vector<A> dw(static_cast<size_t>(n), A(0)), db(static_cast<size_t>(n), A(0));
    std::mutex mu;
    auto fn = backward_rows_best<scalar_t>();
    {
      GilRelease nogil;
      parallel_for(0, m, row_grain(n), [&](int64_t r0, int64_t r1) {
        // each chunk sums its own columns, then adds them in (n per chunk: cheap)
        std::vector<A> cw(want_dw ? static_cast<size_t>(n) : 0, A(0)), cb(static_cast<size_t>(n), A(0));
        Rows<scalar_t> p{n,
                         eps,
                         x.data<scalar_t>(),
                         static_cast<const A*>(w),
                         nullptr,
                         g.data<scalar_t>(),
                         nullptr,
                         dx.defined() ? dx.data<scalar_t>() : nullptr,
                         want_dw ? cw.data() : nullptr,
                         cb.data()};
        fn(p, r0, r1);
        std::lock_guard<std::mutex> lock(mu);
        for (int64_t j = 0; j < n; ++j) {
          db[j] += cb[j];
          if (want_dw) dw[j] += cw[j];
        }
      });
    }
    std::copy(db.begin(), db.end(), db_out.data<A>());
    if (want_dw) std::copy(dw.begin(), dw.end(), dw_out.data<A>());
  });
}

}  // namespace ember::norms
