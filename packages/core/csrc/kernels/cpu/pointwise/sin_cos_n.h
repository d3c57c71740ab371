// sin and cos over contiguous float32 arrays (ops.yaml's `array:`), where the kernel is built for
// AVX-512: the reduction in float, r = x - n pi/2 with pi/2 in three floats through FMAs (each
// product n P exact inside its FMA; pi/2 kept to 2^-76, so for |x| <= 2^13 r is off by well under
// an ulp even next to a multiple of pi/2), and sin r = r + r z S(z), cos r = 1 + z (z C(z) - 1/2)
// with z = r^2 (tools/fit_minimax.py sin / cos_c float: 2^-27.9 and 2^-32.4): 21 vector
// instructions per 16 values against about 40 for vec::sin's reduction and polynomial in double.
// Within 1.52 ulp of the exact value (every third float up to 2^13). Vectors holding an |x| past 2^13, an infinity or a
// NaN go to vec::sin_n / cos_n (double reduction, std:: past 2^24); elsewhere those outright.
#pragma once
#include <cstdint>
#include <type_traits>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "kernels/cpu/vec_math.h"

namespace ember::ops {
namespace {

#if defined(__AVX512F__)
// sin x (cos x when Cos: the quadrant after n + 1) for |x| <= 2^13.
template <bool Cos>
inline __m512 sin_cos16(__m512 x) {
  const __m512 shift = _mm512_set1_ps(0x1.8p23f);
  const __m512 kd = _mm512_fmadd_ps(x, _mm512_set1_ps(0x1.45f306p-1f), shift);  // n = rint(2x / pi) in its low bits
  const __m512 n = _mm512_sub_ps(kd, shift);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0x1.921fb6p+0f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-0x1.777a5cp-25f), r);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-0x1.ee59dap-50f), r);
  const __m512 z = _mm512_mul_ps(r, r);
  __m512 s = _mm512_fmadd_ps(_mm512_set1_ps(-0x1.995408p-13f), z, _mm512_set1_ps(0x1.110778p-7f));
  s = _mm512_fmadd_ps(s, z, _mm512_set1_ps(-0x1.555546p-3f));
  s = _mm512_fmadd_ps(_mm512_mul_ps(r, z), s, r);
  __m512 c = _mm512_fmadd_ps(_mm512_set1_ps(0x1.99eb9cp-16f), z, _mm512_set1_ps(-0x1.6c0c34p-10f));
  c = _mm512_fmadd_ps(c, z, _mm512_set1_ps(0x1.55554ap-5f));
  c = _mm512_fmadd_ps(z, _mm512_fmadd_ps(z, c, _mm512_set1_ps(-0.5f)), _mm512_set1_ps(1.f));
  __m512i q = _mm512_castps_si512(kd);
  if (Cos) q = _mm512_add_epi32(q, _mm512_set1_epi32(1));
  // quadrant q: sin r, cos r, -sin r, -cos r
  const __m512 y = _mm512_mask_blend_ps(_mm512_test_epi32_mask(q, _mm512_set1_epi32(1)), s, c);
  const __m512i sign = _mm512_slli_epi32(_mm512_and_si512(q, _mm512_set1_epi32(2)), 30);
  const __m512 v = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(y), sign));
  // sin(-0) = -0 (the reduction's +0 terms turn -0 into +0)
  return Cos ? v : _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ), x);
}

template <bool Cos>
inline void sin_cos16_n(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const int64_t m = n - i < 16 ? n - i : 16;
    const __mmask16 k = __mmask16((1u << m) - 1);
    const __m512 x = _mm512_maskz_loadu_ps(k, in + i);
    // masked-off lanes read 0, which passes
    if (_mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(0x1p13f), _CMP_LE_OQ) != 0xffff) {
      if (Cos) vec::cos_n(in + i, out + i, m);
      else vec::sin_n(in + i, out + i, m);
      continue;
    }
    _mm512_mask_storeu_ps(out + i, k, sin_cos16<Cos>(x));
  }
}
#endif

template <class T>
inline void sin_n(const T* in, T* out, int64_t n) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) return sin_cos16_n<false>(in, out, n);
#endif
  vec::sin_n(in, out, n);
}

template <class T>
inline void cos_n(const T* in, T* out, int64_t n) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) return sin_cos16_n<true>(in, out, n);
#endif
  vec::cos_n(in, out, n);
}

}  // namespace
}  // namespace ember::ops
