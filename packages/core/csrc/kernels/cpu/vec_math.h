// ember::vec — branch-free elementwise math that GCC/Clang auto-vectorise.
//
//   #pragma omp simd
//   for (int64_t i = 0; i < n; ++i) out[i] = ember::vec::exp(in[i]);
//
// glibc's expf/tanhf/... are scalar calls (vector variants need -ffast-math,
// which breaks NaN/inf semantics), so such a loop would not vectorise.  Every
// function here is plain C++ shaped for the vectoriser: no branches, calls or
// tables, FP selects as bit blends (detail::sel), integer work only on bit
// patterns of the float type's width with operations SSE2/AVX2 have (no
// 64-bit int<->double conversions, compares or arithmetic shifts).
//
// Semantics follow std:: for NaN, +-inf, +-0 and subnormal inputs/outputs
// (default rounding mode); errors are <= ~1.5 ulp, the measured maxima are
// printed by tests/cpp/vec_math_check.cpp.  Correct with and without FMA.
// With FMA, a normal input whose result is normal (or zero) makes no subnormal
// intermediate: on x86 every vector instruction that meets one takes a ~100-cycle
// microcode assist.  Hence squares as sq(x) (+ a bias far below any use's
// rounding), tiny corrections applied as fma(x, c, x), and clamps chosen so
// that results which are exactly 0 or 1 come out without an underflow.  Left
// out, as their clamps cost 5-25% on every input: double inputs below 2^-300
// (no float data makes them) and atan beyond 2^126 (2^1022).
// Exception: sin/cos/tan reduce exactly only for |x| <= kTrigMax<T> (2^24 for
// float, 2^26 for double) and return NaN beyond; sin_n/cos_n/tan_n at the end
// cover the whole range for contiguous arrays.
//
// Coefficients: minimax fits (Remez exchange in mpmath, relative error unless
// noted) made for this file, rounded one coefficient at a time to the target
// precision; "err" is the fit error of the rounded polynomial.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/host_device.h"

// ember::vec::name(float / double) (EMBER_VEC_OR_CUDA2: of two arguments): detail::name_ on the
// host (and the CUDA emulator), CUDA's own function in nvcc's device pass.
#ifdef __CUDA_ARCH__
#define EMBER_VEC_OR_CUDA(name)                                 \
  EMBER_VEC_INLINE float name(float x) { return ::name##f(x); } \
  EMBER_VEC_INLINE double name(double x) { return ::name(x); }
#define EMBER_VEC_OR_CUDA2(name)                                            \
  EMBER_VEC_INLINE float name(float a, float b) { return ::name##f(a, b); } \
  EMBER_VEC_INLINE double name(double a, double b) { return ::name(a, b); }
#else
#define EMBER_VEC_OR_CUDA(name)                                       \
  EMBER_VEC_INLINE float name(float x) { return detail::name##_(x); } \
  EMBER_VEC_INLINE double name(double x) { return detail::name##_(x); }
#define EMBER_VEC_OR_CUDA2(name)                                                  \
  EMBER_VEC_INLINE float name(float a, float b) { return detail::name##_(a, b); } \
  EMBER_VEC_INLINE double name(double a, double b) { return detail::name##_(a, b); }
#endif

namespace ember::vec {
namespace detail {

EMBER_VEC_INLINE uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
EMBER_VEC_INLINE uint64_t bits(double x) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
EMBER_VEC_INLINE float f32(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
EMBER_VEC_INLINE double f64(uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// a*b + c, fused where the target has FMA (nothing below relies on either).
EMBER_VEC_INLINE float fma(float a, float b, float c) {
#ifdef __FP_FAST_FMAF
  return __builtin_fmaf(a, b, c);
#else
  return a * b + c;
#endif
}
EMBER_VEC_INLINE double fma(double a, double b, double c) {
#ifdef __FP_FAST_FMA
  return __builtin_fma(a, b, c);
#else
  return a * b + c;
#endif
}

// c ? a : b as a bit blend.  Never write ?: on floating-point values here:
// GCC makes it a branch, sinks the FP work into it (or jump-threads a
// constant-folded copy), and under -ftrapping-math (the default) won't
// if-convert conditional FP operations, so the loop stays scalar.
EMBER_VEC_INLINE float sel(bool c, float a, float b) {  // (double: see Mask below)
  uint32_t m = 0u - uint32_t(c);
  return f32((bits(a) & m) | (bits(b) & ~m));
}
// Doubles select on 64-bit lane masks (all ones / zero) computed with integer
// arithmetic on bit patterns: SSE2 has no 64-bit compares, and GCC 12 can't
// turn a double compare into a 64-bit mask below SSE4.2.
using Mask = uint64_t;
constexpr uint64_t kAbs = ~(uint64_t(1) << 63), kInfBits = 0x7ff0000000000000u;
constexpr double kInf = INFINITY, kNaN = NAN;
EMBER_VEC_INLINE double sel(Mask m, double a, double b) { return f64((bits(a) & m) | (bits(b) & ~m)); }
double sel(bool, double, double) = delete;                                        // a bool would silently become mask 1
EMBER_VEC_INLINE Mask lt(uint64_t a, uint64_t b) { return 0 - ((a - b) >> 63); }  // a, b < 2^63
EMBER_VEC_INLINE uint64_t abits(double x) { return bits(x) & kAbs; }
EMBER_VEC_INLINE Mask abs_lt(double x, double c) { return lt(abits(x), bits(c)); }      // |x| < c
EMBER_VEC_INLINE Mask abs_le(double x, double c) { return lt(abits(x), bits(c) + 1); }  // |x| <= c
EMBER_VEC_INLINE Mask abs_eq(double x, double c) { return lt(abits(x) ^ bits(c), 1); }  // |x| == c
EMBER_VEC_INLINE Mask is_nan(double x) { return lt(kInfBits, abits(x)); }
EMBER_VEC_INLINE Mask sign_of(double x) { return 0 - (bits(x) >> 63); }
EMBER_VEC_INLINE float copysign(float m, float s) { return f32((bits(m) & 0x7fffffffu) | (bits(s) & 0x80000000u)); }
EMBER_VEC_INLINE double copysign(double m, double s) { return f64((bits(m) & kAbs) | (bits(s) & ~kAbs)); }
// Float special cases avoid blends where they can (3 uops each on recent
// Intel cores): clamp |x| with an integer min on the magnitude bits (NaN
// becomes +-c), then OR NaN back in.  cneg applies to negative x.
EMBER_VEC_INLINE float clamp_abs(float x, float cneg, float cpos) {
  uint32_t s = bits(x) & 0x80000000u;
  int32_t a = int32_t(bits(x) & 0x7fffffffu), c = int32_t(bits(s ? cneg : cpos));
  return f32(uint32_t(a < c ? a : c) | s);
}
// As clamp_abs, and |x| raised to lo (> 0) at the bottom.
EMBER_VEC_INLINE float clamp_abs(float x, float lo, float cneg, float cpos) {
  uint32_t s = bits(x) & 0x80000000u;
  int32_t a = int32_t(bits(x) & 0x7fffffffu), c = int32_t(bits(s ? cneg : cpos)), l = int32_t(bits(lo));
  a = a < c ? a : c;
  return f32(uint32_t(a > l ? a : l) | s);
}
EMBER_VEC_INLINE float nan_if(bool c, float y) { return f32(bits(y) | ((0u - uint32_t(c)) & 0x7fc00000u)); }
// Clamp to [lo, hi] (lo <= 0 <= hi: the bound on x's side of zero is used);
// NaN passes through.
EMBER_VEC_INLINE double clamp(double x, double lo, double hi) {
  double bound = sel(sign_of(x), lo, hi);
  return sel(lt(abits(bound), abits(x)) & ~is_nan(x), bound, x);
}

// x^2 + 2^-60 (2^-200): never subnormal for normal x, and the bias is far below
// the rounding of every use (relative corrections x + x z P(z), 1 + ... sums).
EMBER_VEC_INLINE float sq(float x) { return fma(x, x, 0x1p-60f); }
EMBER_VEC_INLINE double sq(double x) { return fma(x, x, 0x1p-200); }

// Horner: c0 + x*(c1 + x*(c2 + ...)).
template <class T>
EMBER_VEC_INLINE T poly(T, T c0) {
  return c0;
}
template <class T, class... C>
EMBER_VEC_INLINE T poly(T x, T c0, C... c) {
  return fma(x, poly(x, T(c)...), c0);
}

// Adding kShift to |v| < 2^22 (2^51) rounds v to an integer n, and the low
// bits of the sum's bit pattern then hold n in two's complement.
constexpr float kShiftF = 0x1.8p23f;
constexpr double kShiftD = 0x1.8p52;
// 2^(n/2) * 2^(n - n/2) for integer n in the bit pattern of kd = n + shift:
// two normal factors even when 2^n is subnormal or just overflows, so the
// result is rounded once.  At n = -254 (-2046) both factors are +0: callers
// clamp there to get an exact 0 without an underflow.
EMBER_VEC_INLINE float scale2n(float p, float kd) {
  int32_t n = int32_t(bits(kd) - bits(kShiftF)), h = n >> 1;
  return p * f32(uint32_t(h + 127) << 23) * f32(uint32_t(n - h + 127) << 23);
}
EMBER_VEC_INLINE double scale2n(double p, double kd) {
  uint64_t n = bits(kd) - bits(kShiftD);  // n mod 2^64
  uint64_t h = ((n + 4096) >> 1) - 2048;  // floor(n/2), no 64-bit sra
  return p * f64((h + 1023) << 52) * f64((n - h + 1023) << 52);
}

// ---------------------------------------------------------------- exp core
// x = n ln2 + rh + rl: n = rint(x/ln2), ln2 = ln2hi + ln2lo with n*ln2hi
// exact, rh = x - n ln2hi exact, rl = -n ln2lo; |rh + rl| <= ln2/2.
template <class T>
struct Red {
  T kd, rh, rl;
};
using Red32 = Red<float>;
using Red64 = Red<double>;
EMBER_VEC_INLINE Red32 reduce_ln2(float x) {
  float kd = fma(x, 0x1.715476p+0f, kShiftF), n = kd - kShiftF;
  return {kd, fma(n, -0x1.62e4p-1f, x), n * -0x1.7f7d1cp-20f};
}
EMBER_VEC_INLINE Red64 reduce_ln2(double x) {
  double kd = fma(x, 0x1.71547652b82fep+0, kShiftD), n = kd - kShiftD;
  return {kd, fma(n, -0x1.62e42ffp-1, x), n * 0x1.718432a1b0e26p-35};
}
// e^x = 2^n e^r, e^r = 1 + r + r^2 P(r) with r = rh + rl kept unrounded in the
// linear term; P degree 4 (float, err 2^-28.2) or 9 (double, err 2^-57.6).
// x must be in [-104, 89] ([-746, 710]) or NaN.
EMBER_VEC_INLINE float expm1_r(Red32 d) {  // e^r - 1
  float r = d.rh + d.rl;
  float p = poly(r, 0x1.fffffcp-2f, 0x1.55548cp-3f, 0x1.555858p-5f, 0x1.123da6p-7f, 0x1.6ac144p-10f);
  return d.rh + fma(sq(r), p, d.rl);
}
EMBER_VEC_INLINE double expm1_r(Red64 d) {
  double r = d.rh + d.rl;
  double p = poly(r, 0x1.000000000000ap-1, 0x1.5555555555502p-3, 0x1.5555555550608p-5, 0x1.11111111251fcp-7,
                  0x1.6c16c184b3187p-10, 0x1.a01a013b4d591p-13, 0x1.a019989a7fb5ap-16, 0x1.71def9d0c7d3dp-19,
                  0x1.28aec24a08403p-22, 0x1.adcb9e437799fp-26);
  return d.rh + fma(r * r, p, d.rl);
}
// expm1(r) - r = r^2/2 + r^3 P(r) on |r| <= ln2/2, P degree 4 (float, err 2^-31.0).
EMBER_VEC_INLINE float expm1_q(float r) {
  float p = poly(r, 0x1.555554p-3f, 0x1.5554eap-5f, 0x1.1113acp-7f, 0x1.6d4c9cp-10f, 0x1.9c5dfp-13f);
  return sq(r) * fma(r, p, 0.5f);
}
// ... P degree 9 (double, err 2^-60.8).
EMBER_VEC_INLINE double expm1_q(double r) {
  double p = poly(r, 0x1.5555555555559p-3, 0x1.5555555555552p-5, 0x1.111111110f5ecp-7, 0x1.6c16c16c175e9p-10,
                  0x1.a01a01b04702fp-13, 0x1.a01a01a3aa3c5p-16, 0x1.71ddf738c5f9ap-19, 0x1.27e4dc11d2d92p-22,
                  0x1.af60d05799bp-26, 0x1.1f7a03faaa6a7p-29);
  return r * r * fma(r, p, 0.5);
}
template <class T>
EMBER_VEC_INLINE T exp_core(T x) {
  auto d = reduce_ln2(x);
  return scale2n(T(1) + expm1_r(d), d.kd);
}
// x = n ln2 + r with one rounded r (|r| <= ln2/2) and t = 2^n built from kd's
// low bits: for callers whose 2^n stays normal (float |n| <= 126, double 1022).
template <class T>
struct Pow2Red {
  T t, r;
};
EMBER_VEC_INLINE Pow2Red<float> reduce_pow2(float x) {
  float kd = fma(x, 0x1.715476p+0f, kShiftF), n = kd - kShiftF;
  return {f32((bits(kd) << 23) + 0x3f800000u), fma(n, -0x1.7f7d1cp-20f, fma(n, -0x1.62e4p-1f, x))};
}
EMBER_VEC_INLINE Pow2Red<double> reduce_pow2(double x) {
  double kd = fma(x, 0x1.71547652b82fep+0, kShiftD), n = kd - kShiftD;
  return {f64((bits(kd) << 52) + 0x3ff0000000000000u), fma(n, 0x1.718432a1b0e26p-35, fma(n, -0x1.62e42ffp-1, x))};
}
// e^m for m in [-87, 0] (float) or [-708, 0] (double), not NaN: 2^n (1 + r + q),
// for callers that scale e^m down (erf's 1 - e^m).
template <class T>
EMBER_VEC_INLINE T exp_normal(T m) {
  Pow2Red<T> d = reduce_pow2(m);
  return fma(d.t, d.r + expm1_q(d.r), d.t);
}
// e^y - 1 = (t - 1) + t r + t q for y >= 0 with 2^n normal (tanh: y <= 18.04 float,
// 38.2 double): t - 1 is exact and the sum rounds once.
template <class T>
EMBER_VEC_INLINE T expm1_normal(T y) {
  Pow2Red<T> d = reduce_pow2(y);
  return fma(d.t, expm1_q(d.r), fma(d.t, d.r, d.t - T(1)));
}
// e^x as hi + lo (lo = rounding error of 1 + (e^r - 1), scaled), for sigmoid.
template <class T>
struct Pair {
  T hi, lo;
};
template <class T>
EMBER_VEC_INLINE Pair<T> exp_core2(T x) {
  auto d = reduce_ln2(x);
  T q = expm1_r(d), p = T(1) + q;
  return {scale2n(p, d.kd), scale2n((T(1) - p) + q, d.kd)};
}

// ---------------------------------------------------------------- log core
// x = 2^k (1+f), 1+f in [sqrt(1/2), sqrt(2)), f exact; subnormals prescaled.
// Garbage (but no UB) for x <= 0, inf, NaN: callers select those.
struct KF32 {
  float k, f;
};
struct KF64 {
  double k, f;
};
EMBER_VEC_INLINE KF32 log_split(float x) {
  uint32_t sub = 0u - uint32_t(x < 0x1p-126f);  // scale by 2^23 (masks, not blends)
  uint32_t ix = bits(x * f32(0x3f800000u + (sub & (23u << 23))));
  uint32_t tmp = ix - 0x3f3504f3u;  // bits(sqrt(1/2))
  float f = f32(ix - (tmp & 0xff800000u)) - 1.0f;
  return {float(int32_t(tmp) >> 23) - f32(sub & 0x41b80000u), f};  // 23.0f
}
EMBER_VEC_INLINE KF64 log_split(double x) {
  Mask sub = abs_lt(x, 0x1p-1022);
  uint64_t ix = bits(x * sel(sub, 0x1p52, 1.0));
  const uint64_t bias = uint64_t(1024) << 52;  // keeps k + 1024 > 0 in the top bits
  uint64_t tmp = ix - 0x3fe6a09e667f3bcdu + bias;
  double f = f64(ix - (tmp & 0xfff0000000000000u) + bias) - 1.0;
  double k = f64((tmp >> 52) | 0x4330000000000000u) - (0x1p52 + 1024);  // exact int -> double
  return {k - sel(sub, 52.0, 0.0), f};
}
// log1p(f) - f for f in [-0.293, 0.5].  kSq (log1p, whose f may be tiny: log1p_special
// returns x there): squares as sq(), not subnormal; log's f = 0 must give exactly 0.
// float: f^2 (-1/2 + f P(f)), P degree 7 (err 2^-26.3).
template <bool kSq = false>
EMBER_VEC_INLINE float log1p_tail(float f) {
  float p = poly(f, 0x1.5555b2p-2f, -0x1.0002eap-2f, 0x1.996c7cp-3f, -0x1.541ccap-3f, 0x1.26a88cp-3f, -0x1.1422ccp-3f,
                 0x1.dfa478p-4f, -0x1.c9a754p-5f);
  return (kSq ? sq(f) : f * f) * fma(f, p, -0.5f);
}
// double: s = f/(2+f), log1p(f) = 2 atanh(s) = f - (h - s (h + R)), h = f^2/2,
// R = z P(z), z = s^2 <= 0.04, P degree 6 (absolute err 2^-54.9).
EMBER_VEC_INLINE double log1p_tail(double f) {
  double s = f / (2.0 + f), z = s * s, h = 0.5 * f * f;
  double R = z * poly(z, 0x1.5555555555776p-1, 0x1.99999998f0b84p-2, 0x1.249249b228735p-2, 0x1.c71c016109956p-3,
                      0x1.7474e32e336a8p-3, 0x1.3852cf755c1c8p-3, 0x1.3abe58a8a95e4p-3);
  return fma(s, h + R, -h);
}
// std:: special cases of log/log2/log10 on top of the result y, which is
// finite and not -0 for every x: add -inf at 0, +inf at inf, NaN below 0.
EMBER_VEC_INLINE float log_special(float x, float y) {
  uint32_t add = ((0u - uint32_t(x == 0.0f)) & 0xff800000u) | ((0u - uint32_t(x == INFINITY)) & 0x7f800000u) |
                 ((0u - uint32_t(!(x >= 0.0f))) & 0x7fc00000u);
  return y + f32(add);
}
EMBER_VEC_INLINE double log_special(double x, double y) {
  Mask zero = abs_lt(x, 0x1p-1074);
  y = sel(abs_lt(x, kInf), y, x);  // +-inf, NaN
  y = sel(zero, -kInf, y);
  return sel((sign_of(x) & ~zero) | is_nan(x), kNaN, y);
}
// log1p specials on top of the result y (finite for every x; +0 for +-0).
EMBER_VEC_INLINE float log1p_special(float x, float y) {
  uint32_t add = ((0u - uint32_t(x == -1.0f)) & 0xff800000u) | ((0u - uint32_t(x == INFINITY)) & 0x7f800000u) |
                 ((0u - uint32_t(!(x >= -1.0f))) & 0x7fc00000u);
  return sel(std::fabs(x) < 0x1p-26f, x, y + f32(add));  // log1p rounds to x there (and -0); log1p_tail<true>
}
EMBER_VEC_INLINE double log1p_special(double x, double y) {
  y = sel(abs_lt(x, kInf), y, x);       // +-inf, NaN
  y = sel(abs_lt(x, 0x1p-1074), x, y);  // -0
  y = sel(sign_of(x) & abs_eq(x, 1.0), -kInf, y);
  return sel(sign_of(x) & ~abs_le(x, 1.0), kNaN, y);  // x < -1, -NaN
}

// ---------------------------------------------------------------- trig core
// Float inputs, in double: pi = PI1 + PI2 + PI3 with PI1, PI2 of <= 27 bits,
// so for half-integers |n| < 2^24 the products n*PIk are exact and
// x - n*PI1 - n*PI2 - n*PI3 has error ~2^-80 |n|.
constexpr double kPi1 = 0x1.921fb54p+1, kPi2 = 0x1.10b461p-29, kPi3 = 0x1.a62633145c06ep-57;
constexpr double kInvPi = 0x1.45f306dc9c883p-2;
EMBER_VEC_INLINE double reduce_f(double x, double n, double scale) {  // x - n*pi*scale
  double r = fma(n, -kPi1 * scale, x);
  r = fma(n, -kPi2 * scale, r);
  return fma(n, -kPi3 * scale, r);
}
// sin on [-pi/2, pi/2] for float results: r + r^3 P(r^2), P degree 4 (err 2^-35.3).
EMBER_VEC_INLINE double sin_f(double r) {
  double z = r * r;
  double p = poly(z, -0x1.5555554765d92p-3, 0x1.11110c4906987p-7, -0x1.a017d94b980d7p-13, 0x1.717074f5f0052p-19,
                  -0x1.9a6785119afbap-26);
  return r * fma(z, p, 1.0);  // keeps sin(-0) = -0
}
// Double: r = x - n pi/2 as hi + lo for integer |n| < 2^26.  pi/2 = Q1 + Q2 +
// Q3 + Q4; Q1 has 27 bits, Q2 ends at 2^-52 and Q3 has 27 bits, so n*Q1,
// n*Q2, n*Q3 are exact and x - n*Q1 - n*Q2 is exact (a multiple of 2^-52
// below 2 in magnitude); n*Q3 is subtracted keeping the rounding error
// (Fast2Sum; exact by Sterbenz when r is tiny).  Error ~2^-108 absolute plus
// 2^-53 relative.
struct DD {
  double hi, lo;
};
EMBER_VEC_INLINE DD reduce_pio2(double x, double n) {
  double r = fma(n, -0x1.921fb54p+0, x);
  r = fma(n, -0x1.10b46p-30, r);
  double th = n * 0x1.1a62634p-54, hi = r - th;
  return {hi, ((r - hi) - th) - n * -0x1.d747f23e32ed7p-83};
}
// sin and cos of r = hi + lo, |r| <= pi/4: sin r = r + r^3 S(r^2),
// cos r = 1 - r^2/2 + r^4 C(r^2), S, C degree 5 (err 2^-57.9, 2^-63.9); the
// tail lo enters to first order and 1 - r^2/2 is summed with its rounding error.
EMBER_VEC_INLINE double sin4_d(DD r, double z) {
  double S = poly(z, -0x1.5555555555548p-3, 0x1.111111110f73p-7, -0x1.a01a019be9217p-13, 0x1.71de35552b519p-19,
                  -0x1.ae5e4b83e1878p-26, 0x1.5d8b5592dd074p-33);
  return r.hi + fma(r.hi * z, S, fma(-0.5 * z, r.lo, r.lo));
}
EMBER_VEC_INLINE double cos4_d(DD r, double z) {
  double h = 0.5 * z, w = 1.0 - h;
  double C = poly(z, 0x1.555555555554bp-5, -0x1.6c16c16c15013p-10, 0x1.a01a019c8ed07p-16, -0x1.27e4f7f1410ccp-22,
                  0x1.1ee9db8e2d2bap-29, -0x1.8fa65e8f6a8bbp-37);
  return w + (((1.0 - w) - h) + fma(z * z, C, -r.hi * r.lo));
}
// sin x (quarter = 1: cos x) for n = rint(2x/pi) in kd: by n mod 4, sin r,
// cos r, -sin r, -cos r.
EMBER_VEC_INLINE double sin_quadrant(double x, double kd, uint64_t quarter) {
  DD r = reduce_pio2(x, kd - kShiftD);
  double z = sq(r.hi);  // cos4_d's z^2 would underflow below 2^-255
  uint64_t q = bits(kd) + quarter;
  double y = sel(0 - (q & 1), cos4_d(r, z), sin4_d(r, z));
  return f64(bits(y) ^ ((q & 2) << 62));
}
// (-1)^n y for the integer n held in kd = n + kShiftD.
EMBER_VEC_INLINE double flip_odd(double y, double kd) { return f64(bits(y) ^ (bits(kd) << 63)); }

// ---------------------------------------------------------------- tanh, erf
// tanh on |x| < 0.55: x + x^3 P(x^2), P degree 4 (float, err 2^-29.7) or 10
// (double, err 2^-60.6).
EMBER_VEC_INLINE float tanh_small(float x) {
  float z = sq(x);
  return fma(x, z * poly(z, -0x1.55554ap-2f, 0x1.110ceep-3f, -0x1.b91e7ep-5f, 0x1.58e518p-6f, -0x1.9921a2p-8f), x);
}
EMBER_VEC_INLINE double tanh_small(double x) {
  double z = x * x;
  return fma(x * z,
             poly(z, -0x1.555555555554fp-2, 0x1.111111111079p-3, -0x1.ba1ba1b97cb11p-5, 0x1.664f48593f4f9p-6,
                  -0x1.226e2f0e0402fp-7, 0x1.d6d29a8b56977p-9, -0x1.7d8fc5e373e3dp-10, 0x1.34833a582233bp-11,
                  -0x1.e96b0abf1e435p-13, 0x1.5d6678e1685e5p-14, -0x1.46edfac517bf4p-16),
             x);
}
}  // namespace detail

// ================================================================ exp family
// exp: detail::exp_core on x clamped at +-176 (float; double: -1418, 710):
// beyond 89 (710) the product of the two factors of 2^n overflows to inf; below,
// at n = -254 (-2046), both factors are +0: an exact 0 without an underflow
// (masked softmax's -inf).
EMBER_VEC_INLINE float exp(float x) {
  return detail::nan_if(x != x, detail::exp_core(detail::clamp_abs(x, 176.0f, 176.0f)));
}
EMBER_VEC_INLINE double exp(double x) { return detail::exp_core(detail::clamp(x, -1418.0, 710.0)); }

// exp2: n = rint(x), r = x - n exact, 2^r = 1 + r P(r) on |r| <= 1/2, P degree
// 5 (float, err 2^-27.5) or 11 (double, err 2^-58.9); 2^n as in exp.
EMBER_VEC_INLINE float exp2(float x) {
  using namespace detail;
  float xc = clamp_abs(x, 254.0f, 254.0f);  // -254: both factors +0 (see exp)
  float kd = xc + kShiftF, r = xc - (kd - kShiftF);
  float p = poly(r, 0x1.62e432p-1f, 0x1.ebfbe6p-3f, 0x1.c6ada6p-5f, 0x1.3b21c6p-7f, 0x1.5fc00ap-10f, 0x1.4bc7b6p-13f);
  return nan_if(x != x, scale2n(fma(r, p, 1.0f), kd));
}
EMBER_VEC_INLINE double exp2(double x) {
  using namespace detail;
  x = clamp(x, -2046.0, 1025.0);
  double kd = x + kShiftD, r = x - (kd - kShiftD);
  return scale2n(fma(r,
                     poly(r, 0x1.62e42fefa39efp-1, 0x1.ebfbdff82c58ep-3, 0x1.c6b08d704a1c3p-5, 0x1.3b2ab6fba526bp-7,
                          0x1.5d87fe7879debp-10, 0x1.430912f6d599ep-13, 0x1.ffcbfd26585d8p-17, 0x1.62c02a5504636p-20,
                          0x1.b52386796a42ep-24, 0x1.e4abede1c2afbp-28, 0x1.ebe5ffb7b3dffp-32, 0x1.fb43b61f5b027p-36),
                     1.0),
                 kd);
}

// expm1: reduction as exp, expm1(r) = r + q, q = detail::expm1_q(r).  With t = 2^(n-1):
// expm1(x) = 2 ((t rh + (t - 1/2)) + t (rl + q)); t rh + (t - 1/2) is exact
// where it cancels (n = 1), scalings by t and 2 are exact, and n = 0 gives
// r + q, so small |x| is as accurate as the polynomial.
EMBER_VEC_INLINE float expm1(float x) {
  using namespace detail;
  Red32 d = reduce_ln2(clamp_abs(x, 0x1p-26f, 20.0f, 89.0f));  // below 2^-26 expm1 rounds to x
  float q = expm1_q(d.rh + d.rl);
  float t = f32((bits(d.kd) - bits(kShiftF) + 126) << 23);
  float y = 2.0f * (fma(t, d.rh, t - 0.5f) + t * (d.rl + q));
  return nan_if(x != x, sel(std::fabs(x) < 0x1p-26f, x, y));  // -0 too
}
EMBER_VEC_INLINE double expm1(double x) {
  using namespace detail;
  Red64 d = reduce_ln2(clamp(x, -40.0, 710.0));
  double q = expm1_q(d.rh + d.rl);
  double t = f64((bits(d.kd) - bits(kShiftD) + 1022) << 52);
  double y = 2.0 * (fma(t, d.rh, t - 0.5) + t * (d.rl + q));
  return sel(abs_lt(x, 0x1p-1074), x, y);  // -0
}

// ================================================================ log family
// log(x) = k ln2 + f + log1p_tail(f), ln2 in two parts (k*ln2hi exact).
EMBER_VEC_INLINE float log(float x) {
  using namespace detail;
  KF32 s = log_split(x);
  float t = log1p_tail(s.f);
  return log_special(x, fma(s.k, 0x1.62e4p-1f, s.f + fma(s.k, 0x1.7f7d1cp-20f, t)));
}
EMBER_VEC_INLINE double log(double x) {
  using namespace detail;
  KF64 s = log_split(x);
  double t = log1p_tail(s.f);
  return log_special(x, fma(s.k, 0x1.62e42ffp-1, s.f + fma(s.k, -0x1.718432a1b0e26p-35, t)));
}

// log2(x) = k + (f + t) log2(e), t = log1p(f) - f.  f = fh + fl with fh
// holding 12 (21) bits so fh*L2Ehi is exact, and k + fh*L2Ehi is summed with
// its rounding error (Fast2Sum: |k| >= 1 > |fh*L2Ehi| unless k = 0).  Powers
// of two come out exact.
EMBER_VEC_INLINE float log2(float x) {
  using namespace detail;
  KF32 s = log_split(x);
  float t = log1p_tail(s.f);
  float fh = f32(bits(s.f) & 0xfffff000u), fl = s.f - fh;
  float p = fh * 0x1.716p+0f, hi = s.k + p, e = (s.k - hi) + p;
  float lo = fma(fl + t, 0x1.715476p+0f, fma(fh, -0x1.7135a8p-13f, e));
  return log_special(x, hi + lo);
}
EMBER_VEC_INLINE double log2(double x) {
  using namespace detail;
  KF64 s = log_split(x);
  double t = log1p_tail(s.f);
  double fh = f64(bits(s.f) & 0xffffffff00000000u), fl = s.f - fh;
  double p = fh * 0x1.71547652p+0, hi = s.k + p, e = (s.k - hi) + p;
  double lo = fma(fl + t, 0x1.71547652b82fep+0, fma(fh, 0x1.705fc2eefa2p-33, e));
  return log_special(x, hi + lo);
}
// log10(x) = k log10(2) + (f + t) log10(e), same scheme (k*LG2hi exact too).
EMBER_VEC_INLINE float log10(float x) {
  using namespace detail;
  KF32 s = log_split(x);
  float t = log1p_tail(s.f);
  float fh = f32(bits(s.f) & 0xfffff000u), fl = s.f - fh;
  float a = s.k * 0x1.344p-2f, b = fh * 0x1.bccp-2f, hi = a + b, e = (a - hi) + b;
  float lo = fma(fl + t, 0x1.bcb7b2p-2f, fma(fh, -0x1.09d5b2p-15f, fma(s.k, 0x1.3509f8p-18f, e)));
  return log_special(x, hi + lo);
}
EMBER_VEC_INLINE double log10(double x) {
  using namespace detail;
  KF64 s = log_split(x);
  double t = log1p_tail(s.f);
  double fh = f64(bits(s.f) & 0xffffffff00000000u), fl = s.f - fh;
  double a = s.k * 0x1.34413509f8p-2, b = fh * 0x1.bcb7b152p-2, hi = a + b, e = (a - hi) + b;
  double lo = fma(fl + t, 0x1.bcb7b1526e50ep-2, fma(fh, 0x1.b9438ca9aadd5p-36, fma(s.k, -0x1.80433b83b532ap-44, e)));
  return log_special(x, hi + lo);
}

// log1p(x): 1 + x = 2^k (1+f) with 1+f in [3/4, 3/2); f is formed as
// x 2^-k + (2^-k - 1), avoiding the rounding of 1 + x (exact for |k| <= 1,
// f = x for k = 0), then log1p(x) = k ln2 + f + log1p_tail(f).
EMBER_VEC_INLINE float log1p(float x) {
  using namespace detail;
  uint32_t tmp = bits(1.0f + x) - 0x3f400000u;  // bits(0.75)
  int32_t k = int32_t(tmp) >> 23;
  int32_t kc = k < 126 ? k : 126;  // 2^-k - 1 rounds to -1 there
  float f = f32(bits(x) - (uint32_t(k) << 23)) + (f32(uint32_t(127 - kc) << 23) - 1.0f);
  float kf = float(k), t = log1p_tail<true>(f);
  return log1p_special(x, fma(kf, 0x1.62e4p-1f, f + fma(kf, 0x1.7f7d1cp-20f, t)));
}
EMBER_VEC_INLINE double log1p(double x) {
  using namespace detail;
  uint64_t tmp = bits(1.0 + x) - 0x3fe8000000000000u + (uint64_t(1024) << 52);
  uint64_t kb = tmp >> 52;  // k + 1024
  double k = f64(kb | 0x4330000000000000u) - (0x1p52 + 1024);
  double kc = sel(lt(kb, 1024 + 60), k, 60.0) + kShiftD;  // 2^-k - 1 rounds to -1 there
  double s = f64((1023 - (bits(kc) - bits(kShiftD))) << 52);
  double f = f64(bits(x) - ((kb - 1024) << 52)) + (s - 1.0);
  double t = log1p_tail(f);
  return log1p_special(x, fma(k, 0x1.62e42ffp-1, f + fma(k, -0x1.718432a1b0e26p-35, t)));
}

// ================================================================ trig
template <class T>
constexpr T kTrigMax = sizeof(T) == 4 ? T(0x1p24) : T(0x1p26);

// sin, float: n = rint(x/pi), r = x - n pi in [-pi/2, pi/2], sin x = (-1)^n
// sin r, all in double.  Double: n = rint(2x/pi), r = x - n pi/2, and
// sin x = sin r, cos r, -sin r, -cos r for n mod 4 = 0..3.
EMBER_VEC_INLINE float sin(float x) {
  using namespace detail;
  double xd = x, kd = fma(xd, kInvPi, kShiftD);
  float y = float(flip_odd(sin_f(reduce_f(xd, kd - kShiftD, 1.0)), kd));
  return sel(std::fabs(x) <= kTrigMax<float>, y, float(NAN));
}
EMBER_VEC_INLINE double sin(double x) {
  using namespace detail;
  double kd = fma(x, 2 * kInvPi, kShiftD);
  double y = sin_quadrant(x, kd, 0);
  y = sel(abs_lt(x, 0x1p-26), x, y);  // sin x rounds to x there; keeps -0
  return sel(abs_le(x, kTrigMax<double>), y, kNaN);
}
// cos, float: m = rint(x/pi + 1/2), r = x - (m - 1/2) pi, cos x = (-1)^m sin r.
// Double: as sin with n + 1.
EMBER_VEC_INLINE float cos(float x) {
  using namespace detail;
  double xd = x, kd = fma(xd, kInvPi, 0.5) + kShiftD;
  float y = float(flip_odd(sin_f(reduce_f(xd, (kd - kShiftD) - 0.5, 1.0)), kd));
  return sel(std::fabs(x) <= kTrigMax<float>, y, float(NAN));
}
EMBER_VEC_INLINE double cos(double x) {
  using namespace detail;
  double kd = fma(x, 2 * kInvPi, kShiftD);
  double y = sin_quadrant(x, kd, 1);
  return sel(abs_le(x, kTrigMax<double>), y, kNaN);
}
// tan: n = rint(2x/pi), r = x - n pi/2 in [-pi/4, pi/4], tan x = t or -1/t
// for even / odd n.  Float (in double): t = s/c from sin r = r + r^3 S(r^2),
// cos r = 1 - r^2/2 + r^4 C(r^2), S, C degree 3 (err 2^-37.5, 2^-42.9).
// Double: t = r + r^3 T(r^2), T degree 13 (err 2^-56.2), r = hi + lo.
EMBER_VEC_INLINE float tan(float x) {
  using namespace detail;
  double xd = x, kd = fma(xd, 2 * kInvPi, kShiftD);
  double r = reduce_f(xd, kd - kShiftD, 0.5), z = r * r;
  double s =
      r *
      fma(z, poly(z, -0x1.5555554c70074p-3, 0x1.111108691149p-7, -0x1.a00f7e1812825p-13, 0x1.6cd1b13c144dbp-19), 1.0);
  double c =
      fma(z,
          fma(z, poly(z, 0x1.5555554ed82cep-5, -0x1.6c16b828a6126p-10, 0x1.a010dddf9d218p-16, -0x1.241e6a966724ap-22),
              -0.5),
          1.0);
  Mask odd = 0 - (bits(kd) & 1);
  float t = float(sel(odd, -c, s) / sel(odd, s, c));
  return sel(std::fabs(x) <= kTrigMax<float>, t, float(NAN));
}
EMBER_VEC_INLINE double tan(double x) {
  using namespace detail;
  double kd = fma(x, 2 * kInvPi, kShiftD);
  DD r = reduce_pio2(x, kd - kShiftD);
  double z = r.hi * r.hi;
  double T = poly(z, 0x1.55555555554f1p-2, 0x1.11111111183cp-3, 0x1.ba1ba1b46116ep-5, 0x1.664f49aa4ba5p-6,
                  0x1.226e1226f9a15p-7, 0x1.d6d93adb1f7dep-9, 0x1.7d5b06ef06817p-10, 0x1.37fd54e9587f2p-11,
                  0x1.d250223a7dab2p-13, 0x1.1e6bf76a20ed5p-13, -0x1.bbe790c961a29p-16, 0x1.7778f93a90454p-14,
                  -0x1.78c244e89a851p-15, 0x1.5e2d11c39903ep-16);
  double t = r.hi + fma(r.hi * z, T, fma(z, r.lo, r.lo));  // tan'(r) = 1 + tan^2 ~ 1 + z
  t = sel(0 - (bits(kd) & 1), -1.0 / t, t);
  t = sel(abs_lt(x, 0x1p-27), x, t);  // keeps -0
  return sel(abs_le(x, kTrigMax<double>), t, kNaN);
}

// ================================================================ tanh, sigmoid
// tanh: polynomial below 0.55, else 1 - 2/(E + 2) with E = e^{2a} - 1 from
// expm1_normal (cheaper than exp's two-factor scaling and low part), and
// 1 - 2/(E + 2), not E/(E + 2), so that near +-1 the result rounds once
// (gelu_tanh's 1 + tanh in its tail). |x| is clamped where tanh rounds to 1; the
// sign goes back on at the end (-0 -> -0).
EMBER_VEC_INLINE float tanh(float x) {
  using namespace detail;
  float a = std::fabs(x), e = expm1_normal(2.0f * clamp_abs(a, 9.02f, 9.02f));
  return copysign(sel(a >= 0.55f, 1.0f - 2.0f / (e + 2.0f), tanh_small(a)), x);  // NaN: tanh_small(NaN)
}
EMBER_VEC_INLINE double tanh(double x) {
  using namespace detail;
  double a = std::fabs(x), e = expm1_normal(2.0 * sel(abs_lt(a, 19.1), a, 19.1));
  return copysign(sel(abs_lt(a, 0.55) | is_nan(a), tanh_small(a), 1.0 - 2.0 / (e + 2.0)), x);
}
// sigmoid(x) = 1/(1 + e^-x): with e = e^-|x| (no overflow), 1/(1+e) for x >= 0
// and e/(1+e) for x < 0, so tiny results (down to subnormals) stay accurate.
// e = eh + el and s = 1 + e = sh + sl carry their rounding errors, which are
// put back with one correction step: num/s ~ q + (num_lo - q sl)/sh, where
// 1/sh (sh in [1, 2]) only needs a few bits: 1.4571 - sh/2.  x >= 20 (40) gives
// 1 and x <= -176 (-1418) exact 0 (see exp) without an underflow, and sl, whose
// product with q ~ e would underflow, is dropped where e is below 2^-40 (2^-70).
EMBER_VEC_INLINE float sigmoid(float x) {
  using namespace detail;
  // x >= 20 (+NaN: put back at the end) held at 20 by a signed integer min on the bit pattern
  int32_t v = int32_t(bits(x)) < int32_t(bits(20.0f)) ? int32_t(bits(x)) : int32_t(bits(20.0f));
  Pair<float> e = exp_core2(-clamp_abs(std::fabs(f32(uint32_t(v))), 176.0f, 176.0f));
  float sh = 1.0f + e.hi, sl = ((1.0f - sh) + e.hi) + e.lo;
  sl = f32(bits(sl) & (0u - uint32_t(e.hi >= 0x1p-40f)));
  bool neg = x < 0.0f;
  float q = sel(neg, e.hi, 1.0f) / sh;
  return nan_if(x != x, fma(fma(-q, sl, sel(neg, e.lo, 0.0f)), fma(-0.5f, sh, 1.4571f), q));
}
EMBER_VEC_INLINE double sigmoid(double x) {
  using namespace detail;
  Pair<double> e = exp_core2(-std::fabs(clamp(x, -1418.0, 40.0)));
  double sh = 1.0 + e.hi, sl = f64(bits(((1.0 - sh) + e.hi) + e.lo) & ~abs_lt(e.hi, 0x1p-70));
  Mask neg = sign_of(x);  // -0 included: same result
  double q = sel(neg, e.hi, 1.0) / sh;
  return fma(fma(-q, sl, sel(neg, e.lo, 0.0)), fma(-0.5, sh, 1.4571), q);
}

// ================================================================ erf
// erf, float: |x| < 1: x + x G(x^2), G degree 6 (err 2^-29.4); else
// 1 - exp(M(|x|)) with M(x) ~ log(erfc(x)) of degree 9 on [1, 4] (absolute err
// 2^-27.5; erfc < 2^-25 beyond 4, so |x| is clamped there; M >= -17.6, so exp_normal). Both
// polynomials by Estrin's scheme:
// the vector loop is bound by the latency of Horner's chains (gelu 18% faster), at 1.32 ulp
// worst case instead of 1.0.
EMBER_VEC_INLINE float erf(float x) {
  using namespace detail;
  // |x| >= 2^-15 in G's z and ac >= 1 keep every intermediate normal (a subnormal costs ~100 cycles
  // per vector instruction): below, G moves by under 2^-31 of the result
  float a = std::fabs(x), as = f32(bits(a) > bits(0x1p-15f) ? bits(a) : bits(0x1p-15f)), z = as * as;
  float z2 = z * z, z4 = z2 * z2;
  float g01 = fma(z, -0x1.81273ep-2f, 0x1.06eba8p-3f), g23 = fma(z, -0x1.b7f71ap-6f, 0x1.ce2ce6p-4f),
        g45 = fma(z, -0x1.a3515ep-11f, 0x1.53f224p-8f);
  float small = fma(a, fma(z4, fma(z2, 0x1.4771fep-14f, g45), fma(z2, g23, g01)), a);
  uint32_t ab = bits(a) > bits(1.0f) ? bits(a) : bits(1.0f);
  float ac = f32(ab < bits(4.0f) ? ab : bits(4.0f));  // a in [1, 4]; NaN takes small
  float c2 = ac * ac, c4 = c2 * c2, c8 = c4 * c4;
  float m01 = fma(ac, -0x1.216af8p+0f, 0x1.94a2fep-12f), m23 = fma(ac, -0x1.c5b2aep-4f, -0x1.432eeap-1f),
        m45 = fma(ac, -0x1.463c32p-8f, 0x1.b8c55ep-6f), m67 = fma(ac, -0x1.e51852p-15f, 0x1.5a8336p-11f),
        m89 = fma(ac, -0x1.dd39dap-25f, 0x1.8088a4p-19f);
  float m = fma(c8, m89, fma(c4, fma(c2, m67, m45), fma(c2, m23, m01)));
  float big = 1.0f - exp_normal(m);
  return copysign(sel(!(a >= 1.0f), small, big), x);  // NaN: small is NaN
}
// double: |x| < 1: x + x G(x^2), G degree 11 (err 2^-56.0); else 1 - erfc,
// erfc(x) = e^{-x^2} Q(u), u = (x-3)/(x+3) in [-1/2, 1/3] (this variable
// makes Q easy and well conditioned), Q degree 15 (err 2^-52.8, erfc(1) <
// 2^-2.6); |x| clamped at 6 (erfc(6) < 2^-55).
EMBER_VEC_INLINE double erf(double x) {
  using namespace detail;
  double a = std::fabs(x), as = sel(lt(bits(a), bits(0x1p-30)), 0x1p-30, a), z = as * as;  // as in float
  double small = fma(a,
                     poly(z, 0x1.06eba8214db68p-3, -0x1.812746b0379a9p-2, 0x1.ce2f21a0401cp-4, -0x1.b82ce311cf337p-6,
                          0x1.565bccf3b873dp-8, -0x1.c02daf6f5da7dp-11, 0x1.f9a2a783cf679p-14, -0x1.f4c928f26a681p-17,
                          0x1.b9749afa48f48p-20, -0x1.5bc2b2ff62e36p-23, 0x1.d54342e05afa8p-27, -0x1.a632c843152b4p-31),
                     a);
  double ac = sel(lt(bits(a), bits(1.0)), 1.0, clamp(a, -6.0, 6.0)), u = (ac - 3.0) / (ac + 3.0);
  double q = poly(u, 0x1.6e9827d229d2dp-3, -0x1.4e102b9cf851ep-2, 0x1.f6ff20410590fp-3, -0x1.336ffbef077adp-3,
                  0x1.258b13b01c953p-4, -0x1.8fa58eb861cefp-6, 0x1.17c838dff09a7p-8, 0x1.731027963f9c6p-11,
                  -0x1.39083fdead431p-11, 0x1.7b98c1536a6a5p-15, 0x1.0ca620e3bd5bdp-14, -0x1.ae902ac2c9336p-17,
                  -0x1.0a1fddd5a6849p-17, 0x1.0f0b129d32f98p-19, 0x1.1f1a89c87286cp-20, -0x1.796e798b53de2p-23);
  double big = 1.0 - exp_normal(-ac * ac) * q;
  return copysign(sel(abs_lt(a, 1.0), small, big), x);  // NaN: big is NaN
}

// ================================================================ arrays
// Internal linkage: the kernels include this header once per CPU capability, and
// the copies of an inline function that is not inlined would merge at link time
// into one of them.
namespace detail {
namespace {
// body(x, y, m, any) for each block of B elements (x in, y out, m long), any telling whether some
// x in the block has needs(x).
template <int64_t B, class T, class P, class Body>
inline void by_blocks_n(const T* in, T* out, int64_t n, P needs, Body body) {
  for (int64_t b = 0; b < n; b += B) {
    const int64_t m = n - b < B ? n - b : B;
    const T* x = in + b;
    int any = 0;
#pragma omp simd reduction(| : any)
    for (int64_t i = 0; i < m; ++i) any |= needs(x[i]);
    body(x, out + b, m, any != 0);
  }
}
// out[i] = vf(in[i]) over a contiguous array, vectorised, except that blocks
// holding some x with scalar_at(x) are done element by element with sf for
// those elements (inputs beyond the vector form's range).  in == out is allowed.
template <class T, class V, class S, class P>
inline void map_or_scalar_n(const T* in, T* out, int64_t n, V vf, S sf, P scalar_at) {
  by_blocks_n<512>(in, out, n, scalar_at, [&](const T* x, T* y, int64_t m, bool any) {
    if (!any) {
#pragma omp simd
      for (int64_t i = 0; i < m; ++i) y[i] = vf(x[i]);
    } else {
      for (int64_t i = 0; i < m; ++i) y[i] = scalar_at(x[i]) ? sf(x[i]) : vf(x[i]);
    }
  });
}
// out[i] = general(in[i]) over a contiguous array, vectorised, except that blocks of B with no x
// where needs_general(x) take the cheaper vector form fast(x) (the same values there: a branch
// of general that the block skips).  in == out is allowed.
template <int64_t B, class T, class P, class G, class F>
inline void general_or_fast_n(const T* in, T* out, int64_t n, P needs_general, G general, F fast) {
  by_blocks_n<B>(in, out, n, needs_general, [&](const T* x, T* y, int64_t m, bool any) {
    if (any) {
#pragma omp simd
      for (int64_t i = 0; i < m; ++i) y[i] = general(x[i]);
    } else {
#pragma omp simd
      for (int64_t i = 0; i < m; ++i) y[i] = fast(x[i]);
    }
  });
}
template <class T, class V, class S>
inline void trig_n(const T* in, T* out, int64_t n, V vf, S sf) {
  map_or_scalar_n(in, out, n, vf, sf, [](T v) EMBER_VEC_LAMBDA { return std::fabs(v) > kTrigMax<T>; });
}
}  // namespace
}  // namespace detail
namespace {
// sin/cos/tan over the whole range: |x| > kTrigMax<T> through std::.
template <class T>
inline void sin_n(const T* in, T* out, int64_t n) {
  detail::trig_n(in, out, n, [](T v) EMBER_VEC_LAMBDA { return vec::sin(v); }, [](T v) { return std::sin(v); });
}
template <class T>
inline void cos_n(const T* in, T* out, int64_t n) {
  detail::trig_n(in, out, n, [](T v) EMBER_VEC_LAMBDA { return vec::cos(v); }, [](T v) { return std::cos(v); });
}
template <class T>
inline void tan_n(const T* in, T* out, int64_t n) {
  detail::trig_n(in, out, n, [](T v) EMBER_VEC_LAMBDA { return vec::tan(v); }, [](T v) { return std::tan(v); });
}
}  // namespace

}  // namespace ember::vec
