// ember::vec — atan, atan2, asin, acos shaped for the vectoriser (rules and error bounds as in
// vec_math.h; tests/cpp/vec_math_check.cpp measures them).
//
// atan: t = |x| up to 1, else -1/|x| and pi/2 added; atan t = t + t^3 P(t^2) on [-1, 1].
//   Beyond 2^126 (2^1022) -1/|x| is subnormal: left so, as holding |x| there cost 5% (AVX2, float)
//   to 15% (double: the divider's ports) on every input.
// atan2: the same atan of min(|x|, |y|) / max(|x|, |y|), placed in its quadrant.
// asin: s = |x| up to 1/2, else s = sqrt((1 - |x|) / 2) (1 - |x| exact there) and
//   asin |x| = pi/2 - 2 asin s; asin s = s + s^3 Q(s^2) on [0, 1/2]. acos takes the same pieces:
//   pi/2 - asin x, 2 asin s (x > 1/2), pi - 2 asin s (x < -1/2).
// P and Q: minimax fits of tools/fit_minimax.py ("err": relative error of the rounded polynomial).
// pi/2 and pi are added as hi + lo. On a GPU (nvcc's device pass) each is CUDA's own function.
#pragma once
#include "kernels/cpu/vec_math.h"

namespace ember::vec {
namespace detail {

constexpr float kPio2HiF = 0x1.921fb6p+0f, kPio2LoF = -0x1.777a5cp-25f;
constexpr double kPio2Hi = 0x1.921fb54442d18p+0, kPio2Lo = 0x1.1a62633145c07p-54;

// atan t for |t| <= 1: P degree 8 (float, err 2^-26.6) or 19 (double, err 2^-57.6).
EMBER_VEC_INLINE float atan_unit(float t) {
  float z = sq(t);
  float p = poly(z, -0x1.55553ep-2f, 0x1.9991e4p-3f, -0x1.242084p-3f, 0x1.c08c1ap-4f, -0x1.580816p-4f, 0x1.da2574p-5f,
                 -0x1.fd74ecp-6f, 0x1.641eb6p-7f, -0x1.d35e6ep-10f);
  return fma(t, z * p, t);
}
EMBER_VEC_INLINE double atan_unit(double t) {
  double z = sq(t);
  double p = poly(z, -0x1.5555555555526p-2, 0x1.99999999955b1p-3, -0x1.249249237f4a7p-3, 0x1.c71c717fcc556p-4,
                  -0x1.745d11ae3f4e9p-4, 0x1.3b136697d9475p-4, -0x1.110e5115169f2p-4, 0x1.e1bba5a2311fcp-5,
                  -0x1.ae5e6f691c8fbp-5, 0x1.82daccc111763p-5, -0x1.59a3e3cac56a7p-5, 0x1.2c2e26e94fd4ap-5,
                  -0x1.e9f967ad36ffap-6, 0x1.683c0297e587dp-6, -0x1.c78e5e3b9830dp-7, 0x1.d7b72889544fcp-8,
                  -0x1.7a37937f66647p-9, 0x1.b3f7f5aa640eep-11, -0x1.3f33dcdf78f46p-13, 0x1.bbe9bc02782cep-17);
  return fma(t, z * p, t);
}
// (asin s - s) / s for 0 <= s <= 1/2 with z = s^2: Q degree 4 (float, err 2^-27.6) or 11 (double,
// err 2^-55.9). Kept apart from s: pi/2 - 2 asin s subtracts 2s first (exact where it cancels
// most); small s adds it as fma(s, tail, s), so tiny s makes no subnormal.
EMBER_VEC_INLINE float asin_tail(float z) {
  return z * poly(z, 0x1.5555c8p-3f, 0x1.330204p-4f, 0x1.747bbap-5f, 0x1.8c3e28p-6f, 0x1.595c92p-5f);
}
EMBER_VEC_INLINE double asin_tail(double z) {
  double q = poly(z, 0x1.555555555539p-3, 0x1.333333336e82bp-4, 0x1.6db6db42787f2p-5, 0x1.f1c72c39b86e1p-6,
                  0x1.6e89f42b8bc23p-6, 0x1.1c6be2fedea3ep-6, 0x1.c6fda4df4590dp-7, 0x1.8ec3c64a3df54p-7,
                  0x1.abc82cab1d206p-8, 0x1.3ff9cf8b0105p-6, -0x1.09db90bdbcc8dp-6, 0x1.057068e3dfe74p-5);
  return z * q;
}

// (hi + lo) - 2 (s + t) for hi >= 2s >= 0: hi - 2s is summed with its rounding error (Fast2Sum).
template <class T>
EMBER_VEC_INLINE T minus_2s(T hi, T lo, T s, T t) {
  T d = hi - 2 * s, e = (hi - d) - 2 * s;
  return d + ((lo - 2 * t) + e);
}

EMBER_VEC_INLINE float atan_(float x) {
  float a = std::fabs(x);
  bool big = a > 1.0f;
  float r = atan_unit(sel(big, -1.0f / a, a));  // NaN: a
  return copysign(sel(big, kPio2HiF + (r + kPio2LoF), r), x);
}
EMBER_VEC_INLINE double atan_(double x) {
  double a = std::fabs(x);
  Mask big = ~abs_le(a, 1.0);  // NaN too: -1/NaN
  double r = atan_unit(sel(big, -1.0 / a, a));
  return copysign(sel(big, kPio2Hi + (r + kPio2Lo), r), x);
}

EMBER_VEC_INLINE float asin_(float x) {
  float a = std::fabs(x);
  bool big = a > 0.5f;
  float z = sel(big, 0.5f * (1.0f - a), sq(a)), r = std::sqrt(z), s = sel(big, r, a);
  float u = asin_tail(z);  // r u: s u where big, and never subnormal where not
  float y = sel(big, minus_2s(kPio2HiF, kPio2LoF, s, r * u), fma(s, u, s));
  return nan_if(!(a <= 1.0f), copysign(y, x));
}
EMBER_VEC_INLINE double asin_(double x) {
  double a = std::fabs(x);
  Mask big = ~abs_le(a, 0.5);
  double z = sel(big, 0.5 * (1.0 - a), sq(a)), r = std::sqrt(z), s = sel(big, r, a);
  double u = asin_tail(z);  // r u: s u where big, and never subnormal where not
  double y = sel(big, minus_2s(kPio2Hi, kPio2Lo, s, r * u), fma(s, u, s));
  return sel(abs_le(a, 1.0), copysign(y, x), kNaN);
}

EMBER_VEC_INLINE float acos_(float x) {
  float a = std::fabs(x);
  bool big = a > 0.5f, neg = x < 0.0f;
  float z = sel(big, 0.5f * (1.0f - a), sq(a)), r = std::sqrt(z), s = sel(big, r, a);
  float u = asin_tail(z), t = r * u, rs = copysign(fma(s, u, s), x);
  float small = kPio2HiF - (rs - kPio2LoF);
  float far = sel(neg, minus_2s(2.0f * kPio2HiF, 2.0f * kPio2LoF, s, t), 2.0f * (s + t));
  return nan_if(!(a <= 1.0f), sel(big, far, small));
}
EMBER_VEC_INLINE double acos_(double x) {
  double a = std::fabs(x);
  Mask big = ~abs_le(a, 0.5), neg = sign_of(x);
  double z = sel(big, 0.5 * (1.0 - a), sq(a)), r = std::sqrt(z), s = sel(big, r, a);
  double t = s * asin_tail(z), rs = copysign(s + t, x);
  double small = kPio2Hi - (rs - kPio2Lo);
  double far = sel(neg, minus_2s(2.0 * kPio2Hi, 2.0 * kPio2Lo, s, t), 2.0 * (s + t));
  return sel(abs_le(a, 1.0), sel(big, far, small), kNaN);
}

// atan2(y, x): atan of the smaller magnitude over the larger (in [0, 1]) placed in its quadrant as
// off + -r, off in {0, pi/2, pi} (hi + lo), r negated where exactly one of |y| > |x| and "x is
// negative (-0 too)" holds. 0/0 counts as 0 and inf/inf as 1: atan2 of two zeros or two infinities.
EMBER_VEC_INLINE float atan2_(float y, float x) {
  float ax = std::fabs(x), ay = std::fabs(y);
  bool swap = ay > ax, neg = (bits(x) >> 31) != 0;
  float num = sel(swap, ax, ay), den = sel(swap, ay, ax);
  float q = sel(num == INFINITY, 1.0f, sel(den == 0.0f, 0.0f, num / den));
  float r = atan_unit(q);
  float off_hi = sel(swap, kPio2HiF, sel(neg, 2.0f * kPio2HiF, 0.0f));
  float off_lo = sel(swap, kPio2LoF, sel(neg, 2.0f * kPio2LoF, 0.0f));
  float z = (off_hi + sel(swap != neg, -r, r)) + off_lo;
  return sel(x != x || y != y, x + y, copysign(z, y));
}
EMBER_VEC_INLINE double atan2_(double y, double x) {
  double ax = std::fabs(x), ay = std::fabs(y);
  Mask swap = lt(abits(x), abits(y)), neg = sign_of(x);
  double num = sel(swap, ax, ay), den = sel(swap, ay, ax);
  double q = sel(abs_eq(num, kInf), 1.0, sel(abs_lt(den, 0x1p-1074), 0.0, num / den));
  double r = atan_unit(q);
  double off_hi = sel(swap, kPio2Hi, sel(neg, 2.0 * kPio2Hi, 0.0));
  double off_lo = sel(swap, kPio2Lo, sel(neg, 2.0 * kPio2Lo, 0.0));
  double z = (off_hi + sel(swap ^ neg, -r, r)) + off_lo;
  return sel(is_nan(x) | is_nan(y), x + y, copysign(z, y));
}

}  // namespace detail

EMBER_VEC_OR_CUDA(atan)
EMBER_VEC_OR_CUDA(asin)
EMBER_VEC_OR_CUDA(acos)
EMBER_VEC_OR_CUDA2(atan2)

}  // namespace ember::vec
