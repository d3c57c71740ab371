// ember::vec::erfc, branch-free beside vec_math.h.  float: erfc(a) = e^{-a^2} Q(u) for a = |x|,
// Q(u) = erfcx(a) in u = (a - 3) / (a + 3), evaluated in double.  In float, the rounding of u alone
// moves Q by up to 3 ulp (Q falls from 1 to 0.06 over u's range) and e^{-a^2} needs a^2 in two
// parts; in double a^2, a + 3 and a - 3 are exact and the conversion back is the one rounding that
// counts: 0.55 ulp over every float.  One fit covers a in [0, 10.1] (erfc(10.1) < 2^-150): Q of
// degree 10 (err 2^-29.4) and e^r of degree 6 (err 2^-29.0) (tools/fit_minimax.py erfc_q / exp_r).
// x < 0: 2 - erfc(-x), in the same double before the rounding.
// double: glibc's erfc (a scalar call) for now.
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/cpu/vec_math.h"

namespace ember::vec {
namespace detail {

EMBER_VEC_INLINE float erfc_(float x) {
  float a = std::fabs(x);
  bool in = a < 10.1f;  // beyond (and NaN), the scale below is 0: no subnormal on the way to 0 or 2
  float ac = sel(in, a, 10.1f);
  double A = ac, inv0 = 1.0f / (ac + 3.0f);  // the float quotient, one Newton step in double
  double inv = fma(inv0, fma(-inv0, A + 3.0, 1.0), inv0), u = (A - 3.0) * inv;
  double q = poly(u, 0x1.6e9827d4dec8ap-3, -0x1.4e102bddefe0dp-2, 0x1.f6ff1fc3a1ac9p-3, -0x1.336fe727c838dp-3,
                  0x1.258b18b290b1cp-4, -0x1.8facd9ceeaebp-6, 0x1.17c4948eff43ap-8, 0x1.774745bd0fb6p-11,
                  -0x1.37c1618f034p-11, 0x1.e277c8cd4152fp-16, 0x1.d49e1296261b3p-15);
  // e^{-A^2} = 2^n e^r (n >= -148, 2^n normal in double); reduce_pow2's two-part ln2 is not needed
  // for a float result (n ln2's rounding < 2^-45 here) and costs 4% of this function
  double z = A * A, kd = fma(-z, 0x1.71547652b82fep+0, kShiftD), r = fma(kd - kShiftD, -0x1.62e42fefa39efp-1, -z);
  double p = poly(r, 0x1.000000026150bp+0, 0x1.0000009c0093ap+0, 0x1.fffffaaf4eb01p-2, 0x1.55540a7e06e1dp-3,
                  0x1.55589a437d6b1p-5, 0x1.126d0c07c5f23p-7, 0x1.6ab981b5b7373p-10);
  double t = f64((bits(kd) << 52) + 0x3ff0000000000000u);
  bool neg = x < 0.0f;
  double sg = sel(in, sel(neg, -1.0f, 1.0f), 0.0f), off = sel(neg, 2.0f, 0.0f);
  return nan_if(x != x, float(fma(sg, p * q * t, off)));
}

EMBER_VEC_INLINE double erfc_(double x) { return std::erfc(x); }

}  // namespace detail

EMBER_VEC_OR_CUDA(erfc)

}  // namespace ember::vec
