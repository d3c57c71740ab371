// The store of an R x 32 float accumulator tile (two zmm registers a row), shared by the packed
// GEMM and the direct convolution kernels. x86-64 with GCC/Clang only.
#pragma once
#include <immintrin.h>

#include <cstdint>

namespace ember::tile {

// Rows r < R of C (ldc apart) get c0[r] | c1[r]; only columns j < n are touched (masked, so nothing
// past them is read or written); C's old values are added when acc. The callers' accumulator loops
// carry "#pragma GCC unroll": without it GCC zero-fills a stack copy of both arrays on every call.
template <int R>
__attribute__((target("avx512f"), always_inline)) inline void store(const __m512* c0, const __m512* c1, float* C,
                                                                    int64_t ldc, bool acc, int64_t n) {
  const __mmask16 m0 = n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
  const __mmask16 m1 = n >= 32 ? __mmask16(0xFFFF) : n <= 16 ? __mmask16(0) : __mmask16((1u << (n - 16)) - 1);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    float* c = C + r * ldc;
    __m512 v0 = c0[r], v1 = c1[r];
    if (acc) {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, c));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, c + 16));
    }
    _mm512_mask_storeu_ps(c, m0, v0);
    _mm512_mask_storeu_ps(c + 16, m1, v1);
  }
}

// As store, for a GEMM's C = alpha * tile + beta * C; C is not read when beta is 0 (NaNs there
// do not leak through).
template <int R>
__attribute__((target("avx512f"), always_inline)) inline void store_scaled(const __m512* c0, const __m512* c1, float* C,
                                                                           int64_t ldc, float alpha, float beta,
                                                                           int64_t n) {
  const __mmask16 m0 = n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
  const __mmask16 m1 = n >= 32 ? __mmask16(0xFFFF) : n <= 16 ? __mmask16(0) : __mmask16((1u << (n - 16)) - 1);
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  // every load of C before any store: C's rows 4 KB apart (ldc 1024) would otherwise alias each
  // store with the next row's load
  __m512 v0[R], v1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    const float* c = C + r * ldc;
    v0[r] = c0[r], v1[r] = c1[r];
    if (alpha != 1.f) {
      v0[r] = _mm512_mul_ps(v0[r], va);
      v1[r] = _mm512_mul_ps(v1[r], va);
    }
    if (beta == 1.f) {
      v0[r] = _mm512_add_ps(v0[r], _mm512_maskz_loadu_ps(m0, c));
      v1[r] = _mm512_add_ps(v1[r], _mm512_maskz_loadu_ps(m1, c + 16));
    } else if (beta != 0.f) {
      v0[r] = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, c), v0[r]);
      v1[r] = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, c + 16), v1[r]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(C + r * ldc, m0, v0[r]);
    _mm512_mask_storeu_ps(C + r * ldc + 16, m1, v1[r]);
  }
}

}  // namespace ember::tile
