// The complex elementary functions on any {re, im} pair type, host and device: what the GPU's
// complex kernels compute (the CPU's take <complex>'s, i.e. glibc's; PyTorch's GPU kernels take
// thrust's). Both follow C99 Annex G for infinities, NaNs and signed zeros, and so does this:
// the special values first, then formulas that stay accurate near the branch points -- the
// inverse functions by Kahan's ("Branch cuts for complex elementary functions", 1987), tanh by
// his too. Also c10::complex's own log1p / expm1 and aten's logaddexp, which the CPU shares.
#pragma once
#include <cmath>

#include "core/host_device.h"
#include "kernels/complex_arith.h"

namespace ember::complex_math {

#define EMBER_CMATH_USING     \
  using std::atan;            \
  using std::atan2;           \
  using std::copysign;        \
  using std::cos;             \
  using std::cosh;            \
  using std::exp;             \
  using std::expm1;           \
  using std::fabs;            \
  using std::hypot;           \
  using std::isfinite;        \
  using std::isinf;           \
  using std::isnan;           \
  using std::log;             \
  using std::log1p;           \
  using std::sin;             \
  using std::sinh;            \
  using std::sqrt;            \
  using R = decltype(C{}.re); \
  constexpr R kPi = R(3.14159265358979323846264338327950288)

// Past this, exp(x) overflows (float: 88.7, double: 709.8): results that stay finite take exp(x / 2) twice.
template <class R>
EMBER_HOST_DEVICE constexpr R exp_overflow_arg() {
  return sizeof(R) == 4 ? R(88.0) : R(709.0);
}

template <class C>
EMBER_HOST_DEVICE C exp(C z) {
  EMBER_CMATH_USING;
  const R x = z.re, y = z.im;
  if (y == 0) return {exp(x), y};  // exp(x) + i0, also for infinite and NaN x
  if (isinf(x) && !isfinite(y)) {  // (+inf: inf + iNaN; -inf: +0 + i0)
    if (x > 0) return {x, y - y};
    return {R(0), R(0)};
  }
  if (x > exp_overflow_arg<R>()) {  // the product may still be finite
    const R h = exp(x / 2);
    return {(h * cos(y)) * h, (h * sin(y)) * h};
  }
  const R e = exp(x);
  return {e * cos(y), e * sin(y)};
}

template <class C>
EMBER_HOST_DEVICE C log(C z) {
  EMBER_CMATH_USING;
  const R ax = fabs(z.re), ay = fabs(z.im);
  const R hi = ax > ay ? ax : ay, lo = ax > ay ? ay : ax;
  R re;
  if (hi >= R(0.5) && hi <= R(2) && !isnan(lo)) {  // |z| near 1: log(|z|^2) / 2 = log1p(|z|^2 - 1) / 2
    re = R(0.5) * log1p((hi - 1) * (hi + 1) + lo * lo);
  } else {
    re = log(hypot(z.re, z.im));
  }
  return {re, atan2(z.im, z.re)};
}

template <class C>
EMBER_HOST_DEVICE C sqrt(C z) {
  EMBER_CMATH_USING;
  const R x = z.re, y = z.im;
  if (isinf(y)) return {R(INFINITY), y};  // +inf + iy, whatever x is
  if (isnan(x)) return {x, y - y + x};    // NaN + iNaN
  if (isinf(x)) {
    if (x > 0) return {x, isnan(y) ? y : copysign(R(0), y)};
    return {isnan(y) ? y : R(0), copysign(-x, y)};
  }
  if (isnan(y)) return {y, y};
  if (x == 0 && y == 0) return {R(0), y};
  // t = sqrt((|x| + |z|) / 2), in a range where neither the sum overflows nor the halves underflow
  R ax = fabs(x), ay = fabs(y), scale = 1;
  constexpr R kBig = sizeof(R) == 4 ? R(1e37) : R(1e307);
  constexpr R kSmall = sizeof(R) == 4 ? R(1e-36) : R(1e-306);
  if (ax > kBig || ay > kBig) {
    ax *= R(0.25), ay *= R(0.25), scale = 2;
  } else if (ax < kSmall && ay < kSmall) {
    constexpr R kUp = sizeof(R) == 4 ? R(16777216.0) : R(4503599627370496.0);  // 2^24, 2^52 (squares exact)
    ax *= kUp * kUp, ay *= kUp * kUp, scale = 1 / kUp;
  }
  const R t = sqrt((ax + hypot(ax, ay)) * R(0.5));
  const R u = ay / (2 * t);  // the other part
  if (x >= 0) return {t * scale, copysign(u * scale, y)};
  return {u * scale, copysign(t * scale, y)};
}

template <class C>
EMBER_HOST_DEVICE C sinh(C z) {
  EMBER_CMATH_USING;
  const R x = z.re, y = z.im;
  if (y == 0) return {sinh(x), y};
  if (!isfinite(y)) {
    if (x == 0) return {x, y - y};              // +-0 + iNaN
    if (isinf(x)) return {R(INFINITY), y - y};  // inf + iNaN (glibc's sign)
    return {y - y + x, y - y};                  // NaN + iNaN
  }
  if (fabs(x) > exp_overflow_arg<R>()) {  // sinh ~ cosh ~ e^|x| / 2
    const R h = exp(fabs(x) / 2);
    return {copysign(R(1), x) * ((R(0.5) * h * cos(y)) * h), (R(0.5) * h * sin(y)) * h};
  }
  return {sinh(x) * cos(y), cosh(x) * sin(y)};
}

template <class C>
EMBER_HOST_DEVICE C cosh(C z) {
  EMBER_CMATH_USING;
  const R x = z.re, y = z.im;
  if (y == 0) return {cosh(x), isnan(x) ? y : copysign(R(0), x) * y};  // sinh(x) 0, signed
  if (!isfinite(y)) {
    if (x == 0) return {y - y, R(0)};  // NaN +- i0
    if (isinf(x)) return {R(INFINITY), y - y};
    return {y - y + x, y - y};
  }
  if (fabs(x) > exp_overflow_arg<R>()) {
    const R h = exp(fabs(x) / 2);
    return {(R(0.5) * h * cos(y)) * h, copysign(R(1), x) * ((R(0.5) * h * sin(y)) * h)};
  }
  return {cosh(x) * cos(y), sinh(x) * sin(y)};
}

// Kahan's form: tan y and sinh x, no cancellation and no overflow in |x| < 22 (double); past that
// tanh x rounds to +-1 and the imaginary part is 4 sin y cos y e^(-2|x|).
template <class C>
EMBER_HOST_DEVICE C tanh(C z) {
  EMBER_CMATH_USING;
  const R x = z.re, y = z.im;
  if (isnan(x)) return {x, y == 0 ? y : x};
  if (isinf(x)) return {copysign(R(1), x), copysign(R(0), isfinite(y) ? sin(y) * cos(y) : y)};
  if (!isfinite(y)) return {x == 0 ? x : y - y, y - y};  // (+-0 + iNaN where x is 0)
  constexpr R kRound = sizeof(R) == 4 ? R(9) : R(22);
  if (fabs(x) >= kRound) {
    const R e = exp(-2 * fabs(x));
    return {copysign(R(1), x), 4 * sin(y) * cos(y) * e};
  }
  const R t = std::tan(y), b = 1 + t * t, s = sinh(x), rho = sqrt(1 + s * s);
  const R d = 1 + b * s * s;
  return {b * rho * s / d, t / d};
}

// -i f(iz): sin from sinh, tan from tanh, asin from asinh, atan from atanh (cos z = cosh(iz)).
template <class C, class F>
EMBER_HOST_DEVICE C by_rotation(C z, F f) {
  const C r = f(C{-z.im, z.re});
  return {r.im, -r.re};
}
template <class C>
EMBER_HOST_DEVICE C sin(C z) {
  return by_rotation(z, [](C w) { return complex_math::sinh(w); });
}
template <class C>
EMBER_HOST_DEVICE C cos(C z) {
  return cosh(C{-z.im, z.re});
}
template <class C>
EMBER_HOST_DEVICE C tan(C z) {
  return by_rotation(z, [](C w) { return complex_math::tanh(w); });
}

// asinh (Annex G's table for the non-finite parts; Kahan's asin through asinh z = -i asin(iz)).
template <class C>
EMBER_HOST_DEVICE C asinh(C z) {
  EMBER_CMATH_USING;
  const R x = z.re, y = z.im;
  if (!isfinite(x) || !isfinite(y)) {
    if (isinf(x)) return {x, isnan(y) ? y : copysign(isinf(y) ? kPi / 4 : R(0), y)};
    if (isinf(y)) return {copysign(R(INFINITY), x), isnan(x) ? x : copysign(kPi / 2, y)};
    return {y - y + x, y == 0 ? y : y - y + x};  // a NaN part: NaN (imaginary 0 kept)
  }
  // asin(w) for w = iz = -y + ix: ξ = sqrt(1 - w), η = sqrt(1 + w)
  const C xi = complex_math::sqrt(C{1 + y, -x}), eta = complex_math::sqrt(C{1 - y, x});
  const R im = atan(-y / (xi.re * eta.re - xi.im * eta.im));  // Re asin w = atan(Re w / Re(ξη))
  const R re = std::asinh(xi.re * eta.im - xi.im * eta.re);   // Im asin w = asinh(Im(conj(ξ) η))
  // asinh z = -i asin(w): (Im asin w, -Re asin w)
  return {re, -im};
}

template <class C>
EMBER_HOST_DEVICE C asin(C z) {
  return by_rotation(z, [](C w) { return complex_math::asinh(w); });
}

template <class C>
EMBER_HOST_DEVICE C acos(C z) {
  EMBER_CMATH_USING;
  const R x = z.re, y = z.im;
  if (!isfinite(x) || !isfinite(y)) {
    if (isinf(x)) {
      if (isnan(y)) return {y, -fabs(x)};  // NaN - i inf (glibc's sign)
      const R re = isinf(y) ? (x > 0 ? kPi / 4 : 3 * kPi / 4) : (x > 0 ? R(0) : kPi);
      return {re, copysign(R(INFINITY), -y)};
    }
    if (isinf(y)) return {isnan(x) ? x : kPi / 2, -y};
    if (x == 0) return {kPi / 2, y};  // pi/2 + iNaN
    return {y - y + x, y - y + x};    // NaN + iNaN
  }
  // Kahan: Re = 2 atan(Re sqrt(1 - z) / Re sqrt(1 + z)), Im = asinh(Im(conj(sqrt(1 + z)) sqrt(1 - z)))
  const C a = complex_math::sqrt(C{1 - x, -y}), b = complex_math::sqrt(C{1 + x, y});
  return {2 * atan2(a.re, b.re), std::asinh(b.re * a.im - b.im * a.re)};
}

template <class C>
EMBER_HOST_DEVICE C acosh(C z) {
  EMBER_CMATH_USING;
  const R x = z.re, y = z.im;
  if (!isfinite(x) || !isfinite(y)) {
    if (isinf(x)) {
      if (isnan(y)) return {R(INFINITY), y};
      const R im = isinf(y) ? (x > 0 ? kPi / 4 : 3 * kPi / 4) : (x > 0 ? R(0) : kPi);
      return {R(INFINITY), copysign(im, y)};
    }
    if (isinf(y)) return {R(INFINITY), isnan(x) ? x : copysign(kPi / 2, y)};
    if (x == 0) return {y, kPi / 2};  // NaN + i pi/2
    return {y - y + x, y - y + x};
  }
  // Kahan: Re = asinh(Re(conj(sqrt(z - 1)) sqrt(z + 1))), Im = 2 atan(Im sqrt(z - 1) / Re sqrt(z + 1))
  const C a = complex_math::sqrt(C{x - 1, y}), b = complex_math::sqrt(C{x + 1, y});
  return {std::asinh(a.re * b.re + a.im * b.im), 2 * atan2(a.im, b.re)};
}

// atanh z = log((1 + z) / (1 - z)) / 2 in parts: log1p(4x / ((1 - x)^2 + y^2)) / 4 and
// atan2(2y, (1 - x)(1 + x) - y^2) / 2; past 1/sqrt(eps) it is 1/z + i pi/2 to working precision.
template <class C>
EMBER_HOST_DEVICE C atanh(C z) {
  EMBER_CMATH_USING;
  const R x = z.re, y = z.im;
  if (isnan(x) || isnan(y)) {
    if (isinf(x)) return {copysign(R(0), x), y};
    if (isinf(y)) return {copysign(R(0), x), copysign(kPi / 2, y)};
    if (x == 0) return {x, y};
    return {x + y, x + y};
  }
  const R ax = fabs(x), ay = fabs(y);
  constexpr R kBig = sizeof(R) == 4 ? R(8192) : R(134217728);  // 2^13, 2^27
  R re, im;
  if (ax > kBig || ay > kBig) {  // (infinities too): the terms scaled by 1 / max(ax, ay)^2
    if (isinf(ax) || isinf(ay)) {
      re = 0, im = kPi / 2;
    } else {
      const R m = ax > ay ? ax : ay, sx = ax / m, sy = ay / m, r = 1 / m;
      re = (sx * r) / (sx * sx + sy * sy);  // Re(1 / z), the first term of the series
      im = R(0.5) * atan2(2 * sy * r, (r - sx) * (r + sx) - sy * sy);
    }
  } else {
    const R d = (1 - ax) * (1 - ax) + ay * ay;
    re = R(0.25) * log1p(4 * ax / d);
    im = R(0.5) * atan2(2 * ay, (1 - ax) * (1 + ax) - ay * ay);
  }
  return {copysign(re, x), copysign(im, y)};
}

template <class C>
EMBER_HOST_DEVICE C atan(C z) {
  return by_rotation(z, [](C w) { return complex_math::atanh(w); });
}

// c10::complex's log1p and expm1: accurate near 0, where log(1 + z) and exp(z) - 1 cancel.
template <class C>
EMBER_HOST_DEVICE C log1p(C z) {
  EMBER_CMATH_USING;
  const R x = z.re, y = z.im;
  const R theta = atan2(y, x + R(1));
  if (hypot(x, y) < R(0.5)) {
    const R r = x * (R(2) + x) + y * y;
    if (r == 0) return {x, theta};  // underflow
    return {R(0.5) * log1p(r), theta};
  }
  return {log(hypot(x + R(1), y)), theta};
}
template <class C>
EMBER_HOST_DEVICE C expm1(C z) {
  EMBER_CMATH_USING;
  const R x = z.re, y = z.im, a = sin(y / 2);
  return {expm1(x) * cos(y) - R(2) * a * a, exp(x) * sin(y)};
}

// aten's complex _log_add_exp_helper: ordered by real part, NaN infectious, equal infinite real
// parts without log1p (-inf: the smaller; +inf: log(exp(x) + exp(y))). exp_f / log_f: the complex
// exp and log to use (the CPU's <complex> ones, or this file's).
template <class C, class Exp, class Log>
EMBER_HOST_DEVICE C logaddexp(C x, C y, Exp exp_f, Log log_f) {
  EMBER_CMATH_USING;
  const bool x_smaller = isnan(x.re) || isnan(x.im) || x.re < y.re;
  const C lo = x_smaller ? x : y, hi = x_smaller ? y : x;
  if (isnan(lo.re) || isnan(lo.im) || isnan(hi.re) || isnan(hi.im)) return {R(NAN), R(NAN)};
  if (!isfinite(lo.re) && lo.re == hi.re) {
    if (lo.re < 0) return lo;
    const C a = exp_f(lo), b = exp_f(hi);
    return log_f(C{a.re + b.re, a.im + b.im});
  }
  const C l = complex_math::log1p(exp_f(C{lo.re - hi.re, lo.im - hi.im}));
  return {l.re + hi.re, l.im + hi.im};
}

#undef EMBER_CMATH_USING

}  // namespace ember::complex_math
