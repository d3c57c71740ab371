// float32 exp / sigmoid / tanh on 16 lanes for the recurrent gate passes (x86-64, AVX-512).
// vec::sigmoid and vec::tanh are within 1 ulp but spend two divisions and a double-length exp a
// value; here each reciprocal is rcp14 plus one Newton step (relative error 2^-28) and exp has
// no low part, so results stay within ~2 ulp (absolute 1e-7 near tanh's zero) at about a
// third of the cost: the LSTM's gate pass is 5 of these per cell.
#pragma once
#include <immintrin.h>

#include "core/cpu_capability.h"

namespace ember::gate512 {

// e^x for x clamped to [-87, 88.7]: no inf, and no subnormal (each costs a ~100-cycle microcode
// assist; sigmoid and tanh need nothing below e^-87); NaN stays.  r^2 as r r + 2^-60 and tanh's
// a^3 P as a (z P): tiny inputs make no subnormal either.
EMBER_TARGET_AVX512 inline __m512 exp(__m512 x) {
  // max/min return their second operand when either is NaN: x second keeps a NaN
  x = _mm512_min_ps(_mm512_set1_ps(88.7f), _mm512_max_ps(_mm512_set1_ps(-87.f), x));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(0x1.715476p+0f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0x1.62e4p-1f), x);  // x - n ln2, in two parts
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0x1.7f7d1cp-20f), r);
  // e^r - 1 = r + r^2 P(r), P degree 4 (vec_math.h's expm1_r coefficients)
  __m512 p = _mm512_set1_ps(0x1.6ac144p-10f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.123da6p-7f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.555858p-5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.55548cp-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.fffffcp-2f));
  const __m512 em1 = _mm512_fmadd_ps(_mm512_fmadd_ps(r, r, _mm512_set1_ps(0x1p-60f)), p, r);
  return _mm512_scalef_ps(_mm512_add_ps(em1, _mm512_set1_ps(1.f)), n);
}

// 1 / d for d >= 1: rcp14 and one Newton step.
EMBER_TARGET_AVX512 inline __m512 recip(__m512 d) {
  const __m512 r = _mm512_rcp14_ps(d);
  return _mm512_fmadd_ps(_mm512_fnmadd_ps(d, r, _mm512_set1_ps(1.f)), r, r);
}

// 1 / (1 + e^-x); below x = -87.3 the result is flushed to 0 (rcp14 of a huge value).
EMBER_TARGET_AVX512 inline __m512 sigmoid(__m512 x) {
  const __m512 e = exp(_mm512_sub_ps(_mm512_setzero_ps(), x));
  return recip(_mm512_add_ps(_mm512_set1_ps(1.f), e));
}

// sign(x) (1 - 2 / (e^{2|x|} + 1)) from |x| = 0.55 up, an odd polynomial below (vec_math.h's
// tanh_small); NaN stays NaN.
EMBER_TARGET_AVX512 inline __m512 tanh(__m512 x) {
  const __m512 a = _mm512_abs_ps(x);
  const __m512 e = exp(_mm512_add_ps(a, a));
  const __m512 big =
      _mm512_fnmadd_ps(_mm512_set1_ps(2.f), recip(_mm512_add_ps(e, _mm512_set1_ps(1.f))), _mm512_set1_ps(1.f));
  const __m512 z = _mm512_fmadd_ps(a, a, _mm512_set1_ps(0x1p-60f));
  __m512 p = _mm512_set1_ps(-0x1.9921a2p-8f);
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(0x1.58e518p-6f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-0x1.b91e7ep-5f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(0x1.110ceep-3f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-0x1.55554ap-2f));
  const __m512 small = _mm512_fmadd_ps(a, _mm512_mul_ps(z, p), a);
  // NaN compares false: it takes the polynomial, which keeps it
  const __m512 t = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, _mm512_set1_ps(0.55f), _CMP_GE_OQ), small, big);
  // the sign of x back on (tanh(-0) = -0)
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(int(0x80000000u)));
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(t), sign));
}

}  // namespace ember::gate512
