// ember::vec — sinh, cosh, asinh, acosh, atanh shaped for the vectoriser (rules and error
// bounds as in vec_math.h; tests/cpp/vec_math_check.cpp measures them).
//
// sinh / cosh split |x| = n ln2 + r with n = floor(|x| / ln2), so r is in [0, ln2] and
//   sinh |x| = 2^(n-1) (e^r - 4^-n e^-r),  cosh |x| = 2^(n-1) (e^r + 4^-n e^-r):
// one exp-like reduction, no division, no cancellation worth a bit.
// float: the same steps in float (Taylor tails to 2^-26).
// The inverse functions go through vec::log1p with fdlibm's arguments.
// On a GPU (nvcc's device pass) each is CUDA's own function (EMBER_VEC_OR_CUDA).
#pragma once
#include "kernels/cpu/vec_math.h"

namespace ember::vec {
namespace detail {

// cosh r - 1 and sinh r - r on [0, ln2] (a little beyond at the ends), z = r^2: Taylor series,
// truncated where the next term is below 2^-56 of the result (2^-30 for float results).
template <bool kFloat>
EMBER_VEC_INLINE double cosh_r_m1(double z) {
  if constexpr (kFloat) return z * poly(z, 0.5, 1.0 / 24, 1.0 / 720, 1.0 / 40320, 1.0 / 3628800);
  else
    return z * poly(z, 0.5, 1.0 / 24, 1.0 / 720, 1.0 / 40320, 1.0 / 3628800, 1.0 / 479001600, 1.0 / 87178291200,
                    1.0 / 20922789888000);
}
template <bool kFloat>
EMBER_VEC_INLINE double sinh_r_mr(double r, double z) {
  if constexpr (kFloat) return r * z * poly(z, 1.0 / 6, 1.0 / 120, 1.0 / 5040, 1.0 / 362880);
  else
    return r * z *
           poly(z, 1.0 / 6, 1.0 / 120, 1.0 / 5040, 1.0 / 362880, 1.0 / 39916800, 1.0 / 6227020800, 1.0 / 1307674368000,
                1.0 / 355687428096000);
}
// sinh |x| (kCosh: cosh |x|) for a = |x| in [0, 711] (beyond 710.48 the result overflows to inf):
// 2^(n-1) (e^r -+ 4^-n e^-r), e^r and e^-r summed from 1 +- r and the small tails; the
// subtraction loses at most a third (4^-n e^-r <= e^r / 4) and n = 0 takes 2 sinh r itself.
template <bool kCosh, bool kFloat>
EMBER_VEC_INLINE double sinh_cosh(double a) {
  double kd = fma(a, 0x1.71547652b82fep+0, -0.5) + kShiftD, n = kd - kShiftD;  // n = floor(a / ln2), +-1
  double r = fma(n, -0x1.62e42ffp-1, a) + n * 0x1.718432a1b0e26p-35, z = r * r;
  double cm = cosh_r_m1<kFloat>(z), sm = sinh_r_mr<kFloat>(r, z);
  double ep = 1.0 + (r + (cm + sm)), em = (1.0 - r) + (cm - sm);  // e^r, e^-r
  // 4^-n with n capped at 57 (4^-57 vanishes beside 1 as any smaller power does)
  double q = f64((1023 - 2 * (bits(clamp(n, -57.0, 57.0) + kShiftD) - bits(kShiftD))) << 52);
  double p = kCosh ? fma(q, em, ep) : sel(abs_eq(q, 1.0), 2.0 * (r + sm), fma(-q, em, ep));
  return scale2n(p, kd - 1.0);
}
template <bool kCosh>
EMBER_VEC_INLINE double sinh_cosh_d(double x) {
  double y = sinh_cosh<kCosh, false>(clamp(std::fabs(x), -711.0, 711.0));
  return sel(is_nan(x), x, kCosh ? y : copysign(y, x));
}
// The same in float for float results: Taylor tails to 2^-26, |x| clamped at 90 (float overflows
// beyond 89.42); sinh r - r as fma(r, sr, ...), sr = (sinh r - r) / r, and z = sq(r): a tiny r
// makes no subnormal (vec_math.h's header).
template <bool kCosh>
EMBER_VEC_INLINE float sinh_cosh_f(float x) {
  float a = std::fabs(clamp_abs(x, 90.0f, 90.0f));  // NaN is put back at the end
  float kd = fma(a, 0x1.715476p+0f, -0.5f) + kShiftF, n = kd - kShiftF;
  float r = fma(n, -0x1.62e4p-1f, a) + n * -0x1.7f7d1cp-20f, z = sq(r);
  float cm = z * poly(z, 0.5f, 1.0f / 24, 1.0f / 720, 1.0f / 40320);
  float sr = z * poly(z, 1.0f / 6, 1.0f / 120, 1.0f / 5040, 1.0f / 362880);  // (sinh r - r) / r
  float ep = 1.0f + (r + fma(r, sr, cm)), em = (1.0f - r) + fma(-r, sr, cm);
  float q = f32((127u - 2u * (bits(clamp_abs(n, 28.0f, 28.0f) + kShiftF) - bits(kShiftF))) << 23);  // 4^-min(n, 28)
  float p = kCosh ? fma(q, em, ep) : sel(q == 1.0f, 2.0f * fma(r, sr, r), fma(-q, em, ep));
  float y = scale2n(p, kd - 1.0f);
  return nan_if(x != x, kCosh ? y : copysign(y, x));
}

EMBER_VEC_INLINE float f32or64(uint32_t u) { return f32(u); }
EMBER_VEC_INLINE double f32or64(uint64_t u) { return f64(u); }

EMBER_VEC_INLINE float sinh_(float x) { return sinh_cosh_f<false>(x); }
EMBER_VEC_INLINE double sinh_(double x) { return sinh_cosh_d<false>(x); }
EMBER_VEC_INLINE float cosh_(float x) { return sinh_cosh_f<true>(x); }
EMBER_VEC_INLINE double cosh_(double x) { return sinh_cosh_d<true>(x); }

// asinh |x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); from 2^53 (float: 2^24) up, where x^2 may
// overflow and log1p(|x|) = log |x|, log1p(|x|) + ln2.
EMBER_VEC_INLINE float asinh_(float x) {
  float a = std::fabs(x);
  bool big = a >= 0x1p24f;
  // a + a^2 / (1 + sqrt(1 + a^2)), with a held at 2^-60 in the quotient: no subnormal for tiny a
  float ac = f32(bits(a) > bits(0x1p-60f) ? bits(a) : bits(0x1p-60f));
  float u = fma(a, ac / (1.0f + std::sqrt(fma(a, a, 1.0f))), a);
  float y = log1p(sel(big, a, u)) + sel(big, 0x1.62e43p-1f, 0.0f);
  return copysign(y, x);
}
EMBER_VEC_INLINE double asinh_(double x) {
  double a = std::fabs(x);
  Mask big = ~abs_lt(a, 0x1p53);  // NaN too: log1p(NaN)
  double u = a + a * a / (1.0 + std::sqrt(fma(a, a, 1.0)));
  double y = log1p(sel(big, a, u)) + sel(big, 0x1.62e42fefa39efp-1, 0.0);
  return copysign(y, x);
}

// acosh x = log1p(t + sqrt(t (t + 2))), t = x - 1 (exact below 2^53); log1p(x) + ln2 from 2^53
// (float: 2^24) up; NaN below 1. Near 1 the square root is most of the argument, so its rounding
// error and that of t (t + 2) are put back: both residuals exactly, from products of halves
// (Dekker's split; no FMA needed), then one Newton correction. The argument comes as hi + lo
// (t + s summed with its error), lo = num / den already divided by 1 + hi: log1p(hi) + lo / (1 + hi)
// keeps the argument's rounding out of the result (float64 2.01 -> 1.28 ulp, float32 1.86 -> 1.41),
// with one division as before and shorter chains (20% faster).
template <class T>
struct AcoshArg {
  T hi, num, den;
};
template <class T>
EMBER_VEC_INLINE AcoshArg<T> acosh_arg(T t) {
  using U = decltype(bits(t));
  const U top = sizeof(T) == 4 ? U(0xfffff000u) : U(0xfffffffff8000000u);
  T th = f32or64(bits(t) & top), tl = t - th;
  T w = fma(t, t, T(2) * t), wl = (((T(2) * t - w) + th * th) + T(2) * th * tl) + tl * tl;
  T s = std::sqrt(w), sh = f32or64(bits(s) & top), sl = s - sh;
  T e = (((w - sh * sh) - T(2) * sh * sl) - sl * sl) + wl;      // t (t + 2) - s^2
  const T tiny = sizeof(T) == 4 ? T(0x1p-126f) : T(0x1p-1022);  // s = 0 at x = 1 (else s > 2^-26)
  T hi = s + t, d = (s - hi) + t;                               // s >= t: Fast2Sum
  return {hi, fma(T(2) * s, d, e), (T(2) * s + tiny) * (T(1) + hi)};
}
EMBER_VEC_INLINE float acosh_(float x) {
  bool big = x >= 0x1p24f;
  AcoshArg<float> a = acosh_arg(x - 1.0f);
  float y = log1p(sel(big, x, a.hi)) + sel(big, 0x1.62e43p-1f, a.num / a.den);
  return nan_if(!(x >= 1.0f), y);
}
EMBER_VEC_INLINE double acosh_(double x) {
  Mask big = ~abs_lt(x, 0x1p53);
  AcoshArg<double> a = acosh_arg(x - 1.0);
  double y = log1p(sel(big, x, a.hi)) + sel(big, 0x1.62e42fefa39efp-1, a.num / a.den);
  return sel(sign_of(x) | lt(abits(x), bits(1.0)) | is_nan(x), kNaN, y);
}

// atanh |x| = log1p(2|x| + 2|x| q) / 2 below 1/2, log1p(2 q) / 2 above, q = |x| / (1 - |x|)
// (fdlibm's forms); |x| = 1 gives inf, |x| > 1 NaN (log1p of a number below -1).
EMBER_VEC_INLINE float atanh_(float x) {
  float a = std::fabs(x), q = a / (1.0f - a), a2 = 2.0f * a;
  float y = 0.5f * log1p(sel(a < 0.5f, fma(a2, q, a2), 2.0f * q));
  return copysign(y, x);
}
EMBER_VEC_INLINE double atanh_(double x) {
  double a = std::fabs(x), q = a / (1.0 - a), a2 = 2.0 * a;
  double y = 0.5 * log1p(sel(abs_lt(a, 0.5), fma(a2, q, a2), 2.0 * q));
  return copysign(y, x);
}

}  // namespace detail

EMBER_VEC_OR_CUDA(sinh)
EMBER_VEC_OR_CUDA(cosh)
EMBER_VEC_OR_CUDA(asinh)
EMBER_VEC_OR_CUDA(acosh)
EMBER_VEC_OR_CUDA(atanh)

}  // namespace ember::vec
