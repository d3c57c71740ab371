// The scans of kernels/backend.h's ScanKernels: logcumsumexp and cummax / cummin (values and indices),
// along the middle dim of a contiguous [outer, n, inner] view (op bodies: ops/scan/).
#include "kernels/cpu/scan/scan_kernels.h"

#include <cmath>
#include <type_traits>

#include "core/half.h"
#include "kernels/cpu/scan/scan_lines.h"

namespace ember::scan {
namespace {

// log(exp(a) + exp(b)) without overflow; a NaN in either propagates, and two equal infinities
// give themselves (their difference would be NaN).
template <class A>
inline A log_add_exp(A a, A b) {
  if (std::isnan(a) || std::isnan(b)) return a + b;
  const A lo = std::min(a, b), hi = std::max(a, b);
  if (lo == hi && !std::isfinite(lo)) return a;
  return hi + std::log1p(std::exp(lo - hi));
}

// Lines (o, i0..i1) of x viewed as [outer, n, inner], accumulated side by side.
template <class T>
void lse_lines(const T* x, T* out, int64_t n, int64_t inner, int64_t o, int64_t i0, int64_t i1) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  A acc[kChunk];
  const T* xs = x + o * n * inner;
  T* os = out + o * n * inner;
  for (int64_t i = i0; i < i1; ++i) acc[i - i0] = static_cast<A>(xs[i]), os[i] = xs[i];
  for (int64_t j = 1; j < n; ++j)
    for (int64_t i = i0; i < i1; ++i) {
      acc[i - i0] = log_add_exp(acc[i - i0], static_cast<A>(xs[j * inner + i]));
      os[j * inner + i] = static_cast<T>(acc[i - i0]);
    }
}

// Half types compare as float; everything else as itself.
template <class T>
using Cmp = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T>
inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

// Whether v takes over from the best so far: later wins ties; a NaN wins, and once the best is
// NaN only a later NaN replaces it (v >= NaN is false).
template <bool kGreater, class C>
inline bool takes_over(C v, C best) {
  return (kGreater ? v >= best : v <= best) || is_nan(v);
}

// Lines (o, i0..i1) of x viewed as [outer, n, inner], walked side by side.
template <class T, bool kGreater>
void extreme_lines(const T* x, T* vals, int64_t* out, int64_t n, int64_t inner, int64_t o, int64_t i0, int64_t i1) {
  using C = Cmp<T>;
  C best[kChunk];
  T raw[kChunk];  // the best as stored (a half type's bits)
  int64_t idx[kChunk];
  const int64_t base = o * n * inner;
  for (int64_t i = i0; i < i1; ++i)
    best[i - i0] = static_cast<C>(x[base + i]), raw[i - i0] = x[base + i], idx[i - i0] = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t at = base + j * inner + i;
      const C v = static_cast<C>(x[at]);
      if (takes_over<kGreater>(v, best[i - i0])) best[i - i0] = v, raw[i - i0] = x[at], idx[i - i0] = j;
      out[at] = idx[i - i0];
      vals[at] = raw[i - i0];
    }
}

// One contiguous line (inner == 1): a branch, not a select, so that the running best is no
// dependency chain -- it changes rarely (about log n times for random data) and is predicted.
template <class T, bool kGreater>
void extreme_line(const T* x, T* vals, int64_t* out, int64_t n) {
  using C = Cmp<T>;
  C best = static_cast<C>(x[0]);
  T best_raw = x[0];
  int64_t idx = 0;
  for (int64_t j = 0; j < n; ++j) {
    const C v = static_cast<C>(x[j]);
    // the common case (v strictly worse, no NaN) first and alone: as one condition, GCC turned the
    // NaN test into a cmov on the best, a chain through every element (1.8x PyTorch's time)
    if (__builtin_expect(!(kGreater ? v < best : v > best), 0)) {
      if (takes_over<kGreater>(v, best)) best = v, best_raw = x[j], idx = j;
    }
    out[j] = idx;
    vals[j] = best_raw;
  }
}

}  // namespace

void logcumsumexp(const Tensor& x, const Tensor& out, int64_t outer, int64_t n, int64_t inner) {
  EMBER_DISPATCH_FLOAT(x.dtype(), "logcumsumexp", [&] {
    const scalar_t* px = x.data<scalar_t>();
    scalar_t* po = out.data<scalar_t>();
    // log1p and exp per element: about 8 copies' worth
    for_lines(outer, n, inner, 8, [&](int64_t o, int64_t i0, int64_t i1) { lse_lines(px, po, n, inner, o, i0, i1); });
  });
}

void cum_extreme(const Tensor& x, const Tensor& values, const Tensor& indices, int64_t outer, int64_t n, int64_t inner,
                 bool greater) {
  int64_t* po = indices.data<int64_t>();
  EMBER_DISPATCH_ALL(x.dtype(), greater ? "cummax" : "cummin", [&] {
    const scalar_t* px = x.data<scalar_t>();
    scalar_t* pv = values.data<scalar_t>();
    auto run = [&](auto greater_c) {
      constexpr bool kGreater = decltype(greater_c)::value;
      if (inner == 1) {
        for_lines(outer, n, 1, 1, [&](int64_t o, int64_t, int64_t) {
          extreme_line<scalar_t, kGreater>(px + o * n, pv + o * n, po + o * n, n);
        });
      } else {
        for_lines(outer, n, inner, 1, [&](int64_t o, int64_t i0, int64_t i1) {
          extreme_lines<scalar_t, kGreater>(px, pv, po, n, inner, o, i0, i1);
        });
      }
    };
    if (greater) run(std::true_type{});
    else run(std::false_type{});
  });
}

}  // namespace ember::scan
