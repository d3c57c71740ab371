// Error-function family of torch.special: erfcx, ndtr, log_ndtr, ndtri, entr, xlog1py, and
// a fast single-precision erfinv. Double-precision scalar code unless noted.
#pragma once
#include <cmath>
#include <initializer_list>
#include <limits>
#include <type_traits>

#include "core/host_device.h"
#include "kernels/cpu/pointwise/special_math.h"
#include "kernels/cpu/vec_erfinv.h"
#include "kernels/cpu/vec_math.h"

#ifndef EMBER_SPECIAL_VEC
#define EMBER_SPECIAL_VEC EMBER_VEC_INLINE
#endif

namespace ember::special {
namespace {

constexpr double kInvSqrtPi = 0.56418958354775628695;  // 1 / sqrt(pi)

// erfcx(x) = exp(x^2) erfc(x). Below 5 directly (exp(x^2) with the rounding of x*x carried as a
// first-order correction); above, the continued fraction erfc(x) = exp(-x^2)/sqrt(pi) *
// 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), evaluated from the tail.
EMBER_HOST_DEVICE inline double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 5.0) {
    if (x < -26.7) return std::numeric_limits<double>::infinity();
    const double x2 = x * x, lo = std::fma(x, x, -x2);
    return std::exp(x2) * (1.0 + lo) * std::erfc(x);
  }
  if (std::isinf(x)) return 0.0;
  double f = x;
  for (int k = 60; k >= 1; --k) f = x + (0.5 * k) / f;
  return kInvSqrtPi / f;
}

// Standard normal CDF: erfc(-x / sqrt 2) / 2.
EMBER_HOST_DEVICE inline double ndtr(double x) { return 0.5 * std::erfc(-x * M_SQRT1_2); }

// log of the standard normal CDF: through erfcx in the lower tail (no underflow), log1p above.
EMBER_HOST_DEVICE inline double log_ndtr(double x) {
  if (std::isnan(x)) return x;
  if (x < -1.0) {
    const double t = -x * M_SQRT1_2;
    return std::log(0.5 * erfcx(t)) - t * t;
  }
  return std::log1p(-0.5 * std::erfc(x * M_SQRT1_2));
}

// erfc^-1(q) for 0 < q <= 0.5 by Newton on log(erfc(x)) - log(q), log erfc = log erfcx - x^2
// (nearly linear in x, so it converges from the asymptotic start x^2 ~ -log(q sqrt(pi x^2))).
EMBER_HOST_DEVICE inline double erfcinv_small(double q) {
  const double lq = std::log(q);
  double x = std::sqrt(std::fmax(-lq - 0.5 * std::log(M_PI * std::fmax(-lq, 1.0)), 0.25));
  for (int i = 0; i < 30; ++i) {
    const double e = erfcx(x);
    const double f = std::log(e) - x * x - lq, d = -2.0 * kInvSqrtPi / e;
    const double step = f / d;
    x -= step;
    if (std::fabs(step) <= 1e-16 * x) break;
  }
  return x;
}

// Standard normal quantile: sqrt(2) erfinv(2p - 1) in the middle (2p - 1 exact there),
// -sqrt(2) erfcinv(2p) in the tails.
EMBER_HOST_DEVICE inline double ndtri(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  if (p >= 0.25 && p <= 0.75) return M_SQRT2 * erfinv(2.0 * p - 1.0);
  if (p < 0.25) return -M_SQRT2 * erfcinv_small(2.0 * p);
  return M_SQRT2 * erfcinv_small(2.0 * (1.0 - p));
}

// ndtri over a contiguous array (the kernel's `array:`): vec::ndtri, branch-free in double, and
// the scalar ndtri above for 0 < p < 2^-53, past the vector form's range.  in == out is allowed.
template <class T>
inline void ndtri_n(const T* in, T* out, int64_t n) {
  vec::detail::map_or_scalar_n(
      in, out, n, [](T p) EMBER_VEC_LAMBDA { return vec::ndtri(p); }, [](T p) { return static_cast<T>(ndtri(p)); },
      [](T p) EMBER_VEC_LAMBDA { return p > T(0) && p < T(0x1p-53); });
}

// Single-precision erfinv (float, float16, bfloat16 in op-math), branch-free so the kernel loop
// vectorises: Giles' single-precision polynomials ("Approximating the erfinv function", 2010) in
// w = -log((1 - a)(1 + a)) (1 - a exact for a >= 1/2), both branches computed and one selected.
// Within a few ulp of erfinv over (-1, 1) (3.8 at worst, every float against the double form);
// a = 1 gives inf, |y| > 1 or NaN gives NaN, y = +-0 keeps its sign.
// Giles' polynomial for w < 5 (|y| below about 0.99662), times a = |y|.
EMBER_SPECIAL_VEC float erfinv_central_f(float w, float a) {
  const float wa = w - 2.5f;
  float p = 2.81022636e-08f;
  p = 3.43273939e-07f + p * wa;
  p = -3.5233877e-06f + p * wa;
  p = -4.39150654e-06f + p * wa;
  p = 0.00021858087f + p * wa;
  p = -0.00125372503f + p * wa;
  p = -0.00417768164f + p * wa;
  p = 0.246640727f + p * wa;
  p = 1.50140941f + p * wa;
  return p * a;
}

EMBER_SPECIAL_VEC float erfinv_f(float y) {
  const float a = std::fabs(y);
  const float w = -vec::log((1.0f - a) * (1.0f + a));
  const float wb = std::sqrt(w) - 3.0f;  // the vector instruction under the kernels' -fno-math-errno
  float q = -0.000200214257f;
  q = 0.000100950558f + q * wb;
  q = 0.00134934322f + q * wb;
  q = -0.00367342844f + q * wb;
  q = 0.00573950773f + q * wb;
  q = -0.0076224613f + q * wb;
  q = 0.00943887047f + q * wb;
  q = 1.00167406f + q * wb;
  q = 2.83297682f + q * wb;
  // selects, not ?: -- GCC would branch on a conditional FP expression and stay scalar
  float r = vec::detail::sel(w < 5.0f, erfinv_central_f(w, a), q * a);
  r = vec::detail::sel(a == 1.0f, std::numeric_limits<float>::infinity(), r);
  r = vec::detail::sel((a > 1.0f) | (w != w), std::numeric_limits<float>::quiet_NaN(), r);
  return std::copysign(r, y);
}

// erfinv over a contiguous array (the kernel's `array:`): runs of 64 whose every |y| is below the
// tail (0.9966 in float: w < 4.993 < 5; 0.999 in double: w < 6.22 < 6.25; no NaN) take the central
// polynomial alone, skipping the tail's square root and polynomial -- same values, 20% (float) and
// 45% (double) less time on uniform inputs, where 1 run in 5 (1 in 16) needs the tail.
// in == out is allowed.
template <class T>
inline void erfinv_n(const T* in, T* out, int64_t n) {
  constexpr T kCentral = std::is_same_v<T, float> ? T(0.9966f) : T(0.999);
  vec::detail::general_or_fast_n<64>(
      in, out, n, [](T y) EMBER_VEC_LAMBDA { return !(std::fabs(y) < kCentral); },
      [](T y) EMBER_VEC_LAMBDA {
        if constexpr (std::is_same_v<T, float>) return erfinv_f(y);
        else return vec::erfinv(y);
      },
      [](T y) EMBER_VEC_LAMBDA {
        if constexpr (std::is_same_v<T, float>) {
          const float a = std::fabs(y);
          return std::copysign(erfinv_central_f(-vec::log((1.0f - a) * (1.0f + a)), a), y);
        } else {
          return vec::detail::erfinv_central(y);
        }
      });
}

}  // namespace
}  // namespace ember::special

namespace ember::ops {
namespace {

// Kernel-body entry points: double math, rounded once to the op-math type T.
#define EMBER_SPECIAL_UNARY(name, fn)                  \
  template <class T>                                   \
  EMBER_HOST_DEVICE inline T name(T x) {               \
    return static_cast<T>(fn(static_cast<double>(x))); \
  }
EMBER_SPECIAL_UNARY(special_erfcx, special::erfcx)
EMBER_SPECIAL_UNARY(special_ndtr, special::ndtr)
EMBER_SPECIAL_UNARY(special_log_ndtr, special::log_ndtr)
EMBER_SPECIAL_UNARY(special_ndtri, special::ndtri)
#undef EMBER_SPECIAL_UNARY

// always_inline: the generated kernel file is large enough that GCC would otherwise call this per
// element and leave the loop scalar (measured 27x slower than inlined)
template <class T>
EMBER_SPECIAL_VEC T erfinv_fast(T x) {  // float types in single precision; double: vec_erfinv.h
  if constexpr (std::is_same_v<T, double>) return vec::erfinv(x);
  else return static_cast<T>(special::erfinv_f(static_cast<float>(x)));
}

// -x log x for x > 0, 0 at 0, -inf below 0, NaN kept.
template <class T>
EMBER_HOST_DEVICE inline T entr(T x) {
  if (x != x) return x;
  if (x > T(0)) return -x * std::log(x);
  if (x == T(0)) return T(0);
  return -std::numeric_limits<T>::infinity();
}

// x log1p(y), 0 where x == 0 and y is not NaN.
template <class T>
EMBER_HOST_DEVICE inline T xlog1py(T x, T y) {
  if (y != y) return y;
  if (x == T(0)) return T(0);
  return x * std::log1p(y);
}

}  // namespace
}  // namespace ember::ops
