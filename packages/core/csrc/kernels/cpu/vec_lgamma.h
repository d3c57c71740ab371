// ember::vec::lgamma_n: lgamma over a contiguous array, float32 vectorised in double.
// z > 0: lgamma(z) = lgamma(y) - log P with y = z + 7, P = z (z + 1) ... (z + 6) below 7 (y = z,
// P = 1 from 7 up), and lgamma(y) by Stirling's series, (y - 1/2) log y - y + log(2 pi)/2 +
// S(1/y), S through the 1/y^13 term (the next is under 2^-47 from y = 7 on, 2^-50 at the zeros 1
// and 2, y = 8 and 9). x < 0: the reflection log(pi / |sin(pi x)|) - lgamma(1 - x), sin(pi r) of
// r = x - rint(x) (exact) by its Taylor series to r^21 (|r| <= 1/2: the next term is under 2^-52).
// In double the cancellation near the zeros still leaves float's relative precision: 0.93 ulp over
// every positive float, 1.x over the negative ones (against glibc's double lgamma); 1 and 2 give
// exactly 0, the poles (0, negative integers) and +-inf +inf. Blocks of positive inputs skip the
// reflection's third log. PyTorch's float lgamma (Sleef) is 2x slower, glibc's lgammaf 4x.
// float64 arrays go through std::lgamma.
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/cpu/vec_math.h"

namespace ember::vec {
namespace detail {

// lgamma(z) for z > 0 (finite; z = 0 gives +inf), in double.
EMBER_VEC_INLINE double lgamma_core(double z) {
  Mask shift = abs_lt(z, 7.0);
  // z (z+1) ... (z+6) = w (w + 5) (w + 8) (z + 3), w = z (z + 6): no overflow below 7
  double w = fma(z, z, 6.0 * z), p = w * (w + 5.0) * ((w + 8.0) * (z + 3.0));
  double y = z + sel(shift, 7.0, 0.0), t = 1.0 / y;
  double s = t * poly(t * t, 1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188, -691.0 / 360360, 1.0 / 156);
  return ((y - 0.5) * vec::log(y) - y) + (0.91893853320467274178 + s) - vec::log(sel(shift, p, 1.0));
}
// 1 and 2 give exactly 0, +-inf +inf.
EMBER_VEC_INLINE float lgamma_finish(float x, double r) {
  float y = sel((x == 1.0f) | (x == 2.0f), 0.0f, float(r));
  return sel(std::fabs(x) == INFINITY, INFINITY, y);
}
// x > 0 (or NaN; others give garbage).
EMBER_VEC_INLINE float lgamma_pos(float x) { return lgamma_finish(x, lgamma_core(x)); }
// Any x.
EMBER_VEC_INLINE float lgamma_any(float xf) {
  double x = xf;
  Mask neg = sign_of(x);  // -0 too: a pole, sin(pi x) = 0
  double l = lgamma_core(sel(neg, 1.0 - x, x));
  double kd = x + kShiftD, r = x - (kd - kShiftD), u = r * r;  // r = x - rint(x), exact
  // sin(pi r) = r (pi - pi^3 r^2 / 3! + ...): (-1)^k pi^(2k+1) / (2k+1)!
  double sp = r * poly(u, 0x1.921fb54442d18p+1, -0x1.4abbce625be53p+2, 0x1.466bc6775aae2p+1, -0x1.32d2cce62bd86p-1,
                       0x1.50783487ee782p-4, -0x1.e3074fde8871fp-8, 0x1.e8f434d018d63p-12, -0x1.6fadb9f155744p-16,
                       0x1.aaec32af93359p-21, -0x1.8a404211f9547p-26, 0x1.2877020d52cfp-31);
  double refl = 0x1.250d048e7a1bdp+0 - vec::log(std::fabs(sp)) - l;  // log(pi) - log|sin(pi x)| - l
  return lgamma_finish(xf, sel(neg, refl, l));
}

}  // namespace detail

// Internal linkage: this header is compiled once per CPU capability, and an inline function's copies
// would merge at link time into one of them (the baseline's, as it happened: 4x slower).
namespace {
template <class T>
inline void lgamma_n(const T* in, T* out, int64_t n) {
  if constexpr (sizeof(T) == 4) {  // blocks without x <= 0 skip the reflection
    detail::general_or_fast_n<512>(
        in, out, n, [](float x) EMBER_VEC_LAMBDA { return !(x > 0.0f) && x == x; },
        [](float x) EMBER_VEC_LAMBDA { return detail::lgamma_any(x); },
        [](float x) EMBER_VEC_LAMBDA { return detail::lgamma_pos(x); });
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = std::lgamma(in[i]);
  }
}
}  // namespace

}  // namespace ember::vec
