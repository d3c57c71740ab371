// The store of an R x 32 float accumulator tile (two zmm registers a row), shared by the packed
// GEMM and the direct convolution kernels. x86-64 with GCC/Clang only.
#pragma once
#include <immintrin.h>

#include <cstdint>

namespace ember::tile512 {

// The first n of 16 lanes (all for n >= 16, none for n <= 0).
__attribute__((target("avx512f"), always_inline)) inline __mmask16 lanes(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}

// Rows r < R of C (ldc apart) get alpha * (c0[r] | c1[r]) + beta * C; only columns j < n are touched
// (masked, so nothing past them is read or written), and C is not read when beta is 0 (NaNs there
// do not leak through). The callers' accumulator loops carry "#pragma GCC unroll": without it GCC
// zero-fills a stack copy of both arrays on every call.
template <int R>
__attribute__((target("avx512f"), always_inline)) inline void store_scaled(const __m512* c0, const __m512* c1, float* C,
                                                                           int64_t ldc, float alpha, float beta,
                                                                           int64_t n) {
  const __mmask16 m0 = lanes(n), m1 = lanes(n - 16);
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

// store_scaled with alpha 1: C's old values added when acc, else overwritten.
template <int R>
__attribute__((target("avx512f"), always_inline)) inline void store(const __m512* c0, const __m512* c1, float* C,
                                                                    int64_t ldc, bool acc, int64_t n) {
  store_scaled<R>(c0, c1, C, ldc, 1.f, acc ? 1.f : 0.f, n);
}

}  // namespace ember::tile512
