// The scans of kernels/backend.h's ScanKernels: logcumsumexp and the indices of cummax / cummin,
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

// Lines (o, i0..i1) of x viewed as [outer, n, inner], walked side by side.
template <class T>
void extreme_lines(const T* x, int64_t* out, int64_t n, int64_t inner, bool greater, int64_t o, int64_t i0,
                   int64_t i1) {
  using C = Cmp<T>;
  C best[kChunk];
  int64_t idx[kChunk];
  const T* xs = x + o * n * inner;
  int64_t* os = out + o * n * inner;
  for (int64_t i = i0; i < i1; ++i) best[i - i0] = static_cast<C>(xs[i]), idx[i - i0] = 0, os[i] = 0;
  for (int64_t j = 1; j < n; ++j)
    for (int64_t i = i0; i < i1; ++i) {
      const C v = static_cast<C>(xs[j * inner + i]);
      C& b = best[i - i0];
      // later wins ties; a NaN wins, and once the best is NaN only a later NaN replaces it
      if (is_nan(v) || (!is_nan(b) && (greater ? v >= b : v <= b))) b = v, idx[i - i0] = j;
      os[j * inner + i] = idx[i - i0];
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

void cum_extreme_indices(const Tensor& x, const Tensor& out, int64_t outer, int64_t n, int64_t inner, bool greater) {
  int64_t* po = out.data<int64_t>();
  EMBER_DISPATCH_ALL(x.dtype(), greater ? "cummax" : "cummin", [&] {
    const scalar_t* px = x.data<scalar_t>();
    for_lines(outer, n, inner, 1,
              [&](int64_t o, int64_t i0, int64_t i1) { extreme_lines(px, po, n, inner, greater, o, i0, i1); });
  });
}

}  // namespace ember::scan
