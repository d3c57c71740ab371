// ember::vec::erfinv and ndtri in double, branch-free beside vec_math.h (so the loops
// vectorise; float ndtri runs in double): erfinv(a) = a P(w) in Giles' variable
// w = -log((1 - a)(1 + a)) ("Approximating the erfinv function", 2010), with this file's own fits
// (tools/fit_minimax.py erfinv_w / erfinv_s): P1(w - 3.125) below w = 6.25, degree 24 (err
// 2^-57.6), and P2(sqrt(w) - 4.25) up to w = 36.05 (a = 1 - 2^-53), degree 28 (err 2^-55.8), their
// two lowest coefficients in two parts; both are computed and one is selected.  ndtri(p) =
// -sqrt(2) erfcinv(2p) takes w from q = 2 min(p, 1 - p) directly, so its lower tail keeps full
// precision; below p = 2^-53 (w past P2's range) special::ndtri_n hands the element to the
// scalar special::ndtri.  Measured against mpmath: erfinv within 2.2 ulp, ndtri 3.0.
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/cpu/vec_math.h"

namespace ember::vec {
namespace detail {

// c0 + c1 v + v^2 p with c0 and c1 as hi + lo: rounded, they alone would cost the result
// about an ulp (|c1 v| is most of |c0| at the ends of the interval).
EMBER_VEC_INLINE double tail2(double v, double p, double c1h, double c1l, double c0h, double c0l) {
  return c0h + fma(v, c1h + fma(v, p, c1l), c0l);
}
// erfinv(a) / a from w (NaN stays NaN; w = inf gives garbage: callers select a = 1).
// P1 (w below 6.25) and P2 (from 6.25 up).
EMBER_VEC_INLINE double erfinv_p1(double w) {
  double v = w - 3.125;
  double p1 = poly(v, -0x1.8b6c33114ead6p-8, -0x1.84576948356aap-11, 0x1.879c2a20b529bp-13, -0x1.d1d1f7ca22333p-17,
                   -0x1.6e8a53cde9adcp-20, 0x1.c6b4f88bee634p-22, -0x1.f36ced466e58fp-26, -0x1.1a9eb0f04d365p-28,
                   0x1.20f5363d71f4bp-30, -0x1.dc3f138930785p-35, -0x1.c8a3f8f82e848p-37, 0x1.7235e00802b87p-39,
                   -0x1.6bdbe909f00f1p-44, -0x1.686e612e67c9p-45, 0x1.d6c6eea7e8c82p-48, -0x1.6fcf06b9e0ac1p-55,
                   -0x1.1ca7683065fb5p-53, 0x1.1ec2176abedcfp-56, 0x1.9aa7f4e85ea47p-61, -0x1.9bbf9c3a486e7p-62,
                   0x1.3868dac022b15p-66, 0x1.e67f143c1b10fp-69, -0x1.6add0aef7533bp-72);
  return tail2(v, p1, 0x1.ebd80d9b13dfap-3, -0x1.11b64d65e20e7p-57, 0x1.a755e7c99ae86p+0, -0x1.59b1f95d5415cp-56);
}
EMBER_VEC_INLINE double erfinv_p2(double w) {
  double s = std::sqrt(w) - 4.25;
  double p2 = poly(s, 0x1.75afae952913fp-11, -0x1.3eb627bd2409p-11, 0x1.bcf78165e5b17p-13, -0x1.0e322e46df889p-14,
                   0x1.70c3f060a6457p-16, -0x1.562d4567ccceep-17, 0x1.85b7f96aa7d73p-18, -0x1.aefd8f25efd9bp-19,
                   0x1.9005840840b49p-20, -0x1.14a0b40f582fcp-21, 0x1.90854043ae1f4p-24, 0x1.b7fd9b97247eap-26,
                   -0x1.028bef7c88f04p-25, 0x1.cdc0731c64b28p-27, -0x1.aa64cc817aa93p-29, -0x1.a31142ece4f2p-33,
                   0x1.0956bdbfbe891p-31, -0x1.997a6a314ccaap-33, 0x1.c7a6cf511f5fep-36, 0x1.361071cccd1f3p-39,
                   -0x1.0b04903735363p-39, 0x1.ea4baf27cd8f8p-40, -0x1.8c0fefcbcf45fp-41, -0x1.de36cce9c9918p-45,
                   0x1.514be7ff9d1d9p-44, -0x1.4255f068735c3p-48, -0x1.0d98d75e2609p-49);
  return tail2(s, p2, 0x1.028defb613f8dp+0, 0x1.abb44b9bc10e5p-55, 0x1.05e6fd13251afp+2, -0x1.3b64d926c243fp-52);
}
EMBER_VEC_INLINE double erfinv_ratio(double w) { return sel(abs_lt(w, 6.25), erfinv_p1(w), erfinv_p2(w)); }
// scale erfinv(1 - q) = (1 - q) R, R = scale erfinv_ratio(w): 1 - q is exact from q = 1/2 up,
// below that R - q R spares its rounding (q R <= R/2, so no cancellation without FMA either);
// q = 0 gives inf, w NaN (|y| > 1, NaN) NaN.
EMBER_VEC_INLINE double erfinv_1mq(double q, double w, double scale) {
  double r = scale * erfinv_ratio(w);
  return sel(abs_eq(q, 0.0), kInf, sel(abs_lt(q, 0.5), fma(-q, r, r), (1.0 - q) * r));
}

EMBER_VEC_INLINE double erfinv_(double y) {
  double a = std::fabs(y), q = 1.0 - a;  // exact from a = 1/2 up
  double x = sel(abs_eq(q, 0.0), kInf, a * erfinv_ratio(-log(q * (1.0 + a))));
  return copysign(x, y);  // y = -0 keeps its sign
}
EMBER_VEC_INLINE float erfinv_(float y) { return float(erfinv_(double(y))); }
// erfinv_(y) for |y| < 0.999 (w < 6.22: P1 alone, as erfinv_ gives it there)
EMBER_VEC_INLINE double erfinv_central(double y) {
  double a = std::fabs(y);
  return copysign(a * erfinv_p1(-log((1.0 - a) * (1.0 + a))), y);
}

// ndtri(p) = sign sqrt(2) erfinv(1 - q), q = 2 min(p, 1 - p) (1 - p exact from 1/2 up); outside
// [0, 1] and NaN: NaN; 0 and 1: -inf and inf.
EMBER_VEC_INLINE double ndtri_(double p) {
  Mask lower = abs_lt(p, 0.5);  // (-0 too: -inf like +0)
  double q = 2.0 * sel(lower, p, 1.0 - p);
  double x = erfinv_1mq(q, -log(q * (2.0 - q)), M_SQRT2);
  Mask bad = lt(bits(1.0), abits(p)) | (sign_of(p) & ~abs_eq(p, 0.0));  // NaN, |p| > 1, p < 0
  return sel(bad, kNaN, sel(lower, -x, x));
}
EMBER_VEC_INLINE float ndtri_(float p) { return float(ndtri_(double(p))); }

}  // namespace detail

EMBER_VEC_OR_CUDA(erfinv)
#ifdef __CUDA_ARCH__
EMBER_VEC_INLINE float ndtri(float x) { return ::normcdfinvf(x); }
EMBER_VEC_INLINE double ndtri(double x) { return ::normcdfinv(x); }
#else
EMBER_VEC_OR_CUDA(ndtri)
#endif

}  // namespace ember::vec
