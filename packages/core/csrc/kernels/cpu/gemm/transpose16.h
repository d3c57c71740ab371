// The 16 x 16 transpose of 32-bit lanes held in 16 zmm registers, shared by the float packed GEMM
// and the bfloat16 packing (pairs of bf16 as one 32-bit lane). x86-64 with GCC/Clang only.
#pragma once
#include <immintrin.h>

namespace ember::transpose16_detail {

// Pairs of floats interleaved as doubles: the middle step of the transpose.
__attribute__((target("avx512f"), always_inline)) inline __m512 lo64(__m512 a, __m512 b) {
  return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
}
__attribute__((target("avx512f"), always_inline)) inline __m512 hi64(__m512 a, __m512 b) {
  return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
}

}  // namespace ember::transpose16_detail

namespace ember {

// r[i][j] -> r[j][i] for a 16 x 16 block of 32-bit lanes (on the float view: the integer unpacks
// trip a GCC 12 -Wuninitialized false positive inside its own header).
__attribute__((target("avx512f"), always_inline)) inline void transpose16(__m512* r) {
  using transpose16_detail::hi64;
  using transpose16_detail::lo64;
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = lo64(t[i], t[i + 2]);
    r[i + 1] = hi64(t[i], t[i + 2]);
    r[i + 2] = lo64(t[i + 1], t[i + 3]);
    r[i + 3] = hi64(t[i + 1], t[i + 3]);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
    t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xdd);
    t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
    t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xdd);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
    r[i + 4] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], 0x88);
    r[i + 12] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], 0xdd);
  }
}

// The same on integer registers (bf16 pairs), through the float view.
__attribute__((target("avx512f"), always_inline)) inline void transpose16(__m512i* ri) {
  __m512 r[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_castsi512_ps(ri[i]);
  transpose16(r);
  for (int i = 0; i < 16; ++i) ri[i] = _mm512_castps_si512(r[i]);
}

}  // namespace ember
