// sigmoid, silu, silu's backward and glu over contiguous float32 arrays (ops.yaml's and
// ops/nn_activation.yaml's `array:`), where the kernel is built for AVX-512. exp16 is vec::exp's
// own arithmetic (same reduction and polynomial, so the same values) with vscalefps for the
// power of two in place of the two-factor scaling, range checks and NaN masks that the compiler's
// vector loop spends there: silu and its backward keep their bit patterns (aten's x / (1 + e^-x)
// with e^-x rounded once), 1.3x faster. sigmoid is num / (1 + z), z = e^-|x| and num = z below 0
// (1 above), one correctly rounded division: within 2.5 ulp (vec::sigmoid carries z and 1 + z as
// double-length values to stay within 1; PyTorch's 1 / (1 + e^-x) is 0 below -88.7, here z / 1
// keeps the tiny value down to the subnormals), 2.5x faster. Elsewhere (and float64) the loops of
// the bodies.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/pointwise/activation_ops.h"
#include "kernels/cpu/pointwise/map16.h"
#include "kernels/cpu/vec_math.h"

namespace ember::ops {
namespace {

#if defined(__AVX512F__)
// e^x for |x| <= 104 (e^104 scales to inf, e^-104 to 0) or NaN.
inline __m512 exp16(__m512 x) {
  const __m512 shift = _mm512_set1_ps(0x1.8p23f);
  const __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(0x1.715476p+0f), shift), shift);
  const __m512 rh = _mm512_fmadd_ps(n, _mm512_set1_ps(-0x1.62e4p-1f), x);  // x - n ln2, in two parts
  const __m512 rl = _mm512_mul_ps(n, _mm512_set1_ps(-0x1.7f7d1cp-20f));
  const __m512 r = _mm512_add_ps(rh, rl);
  __m512 p = _mm512_set1_ps(0x1.6ac144p-10f);  // vec_math.h's expm1_r
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.123da6p-7f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.555858p-5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.55548cp-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.fffffcp-2f));
  const __m512 em1 = _mm512_add_ps(rh, _mm512_fmadd_ps(_mm512_fmadd_ps(r, r, _mm512_set1_ps(0x1p-60f)), p, rl));
  return _mm512_scalef_ps(_mm512_add_ps(_mm512_set1_ps(1.f), em1), n);
}

// x held to [-104, 104]; max / min return their second operand when either is NaN.
inline __m512 clamp104(__m512 x) {
  return _mm512_min_ps(_mm512_set1_ps(104.f), _mm512_max_ps(_mm512_set1_ps(-104.f), x));
}

// 1 + e^-x as aten's silu takes it (inf below -88.7).
inline __m512 one_plus_exp_neg(__m512 x) {
  return _mm512_add_ps(_mm512_set1_ps(1.f), exp16(_mm512_sub_ps(_mm512_setzero_ps(), clamp104(x))));
}

inline __m512 sigmoid16(__m512 x) {
  const __m512 z = exp16(_mm512_sub_ps(_mm512_setzero_ps(), clamp104(_mm512_abs_ps(x))));
  const __m512 num = _mm512_mask_mov_ps(_mm512_set1_ps(1.f), _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), z);
  return _mm512_div_ps(num, _mm512_add_ps(_mm512_set1_ps(1.f), z));
}
#endif

template <class T>
inline void sigmoid_n(const T* in, T* out, int64_t n) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) return map16(out, n, [](__m512 x) { return sigmoid16(x); }, in);
#endif
  map_n(out, n, [](T x) EMBER_VEC_LAMBDA { return vec::sigmoid(x); }, in);
}

template <class T>
inline void silu_n(const T* in, T* out, int64_t n) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>)
    return map16(out, n, [](__m512 x) { return _mm512_div_ps(x, one_plus_exp_neg(x)); }, in);
#endif
  map_n(out, n, [](T x) EMBER_VEC_LAMBDA { return silu_(x); }, in);
}

// dy s (1 + x (1 - s)), aten's order.
template <class T>
inline void silu_backward_n(const T* dy, const T* in, T* out, int64_t n) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    const auto f = [](__m512 g, __m512 x) {
      const __m512 one = _mm512_set1_ps(1.f), s = _mm512_div_ps(one, one_plus_exp_neg(x));
      return _mm512_mul_ps(_mm512_mul_ps(g, s), _mm512_add_ps(one, _mm512_mul_ps(x, _mm512_sub_ps(one, s))));
    };
    return map16(out, n, f, dy, in);
  }
#endif
  map_n(out, n, [](T g, T x) EMBER_VEC_LAMBDA { return silu_backward_(g, x); }, dy, in);
}

// The first half times sigmoid of the second.
template <class T>
inline void glu_n(const T* a, const T* b, T* out, int64_t n) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>)
    return map16(out, n, [](__m512 u, __m512 v) { return _mm512_mul_ps(u, sigmoid16(v)); }, a, b);
#endif
  map_n(out, n, [](T u, T v) EMBER_VEC_LAMBDA { return u * vec::sigmoid(v); }, a, b);
}

}  // namespace
}  // namespace ember::ops
