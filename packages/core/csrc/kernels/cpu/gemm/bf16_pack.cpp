// Packing of bfloat16 operands into bf16_blocks.h's layout, and the write-back of a float32
// accumulator block into C. AVX-512 (F, BW, VL): only reached after cpu_has_avx512_bf16().
#include "bf16_blocks.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "kernels/cpu/gemm/transpose16.h"

#define EMBER_PACK_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma")))

namespace ember::bf16gemm {
namespace {

EMBER_PACK_TARGET inline __mmask16 lanes16(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}
EMBER_PACK_TARGET inline __mmask32 lanes32(int64_t n) {
  return n >= 32 ? __mmask32(0xFFFFFFFFu) : n <= 0 ? __mmask32(0) : __mmask32((1u << n) - 1);
}

// 16 pairs of columns j of rows k and k + 1 (src, src + ld) as 32-bit (row k low, row k+1 high);
// `pair` false (row k is the last): the high halves zero.
EMBER_PACK_TARGET inline __m512i interleave(const uint16_t* src, int64_t ld, bool pair, int64_t n) {
  const __mmask16 m = lanes16(n);
  const __m512i lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, src));
  if (!pair) return lo;
  const __m512i hi = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, src + ld));
  return _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16));
}

}  // namespace

EMBER_PACK_TARGET void pack_a_rows(const uint16_t* A, int64_t lda, int64_t mc, int64_t kc, int64_t kcp, uint16_t* Ap) {
  const int64_t rows = round_up(mc, 32), as = a_stride(kcp);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < kcp; k += 32) {
      const __m512i v = r < mc ? _mm512_maskz_loadu_epi16(lanes32(kc - k), A + r * lda + k) : _mm512_setzero_si512();
      _mm512_store_si512(Ap + r * as + k, v);
    }
}

EMBER_PACK_TARGET void pack_a_cols(const uint16_t* A, int64_t lda, int64_t mc, int64_t kc, int64_t kcp, uint16_t* Ap) {
  const int64_t rows = round_up(mc, 32), as = a_stride(kcp);
  for (int64_t m = 0; m < rows; m += 16)
    for (int64_t k = 0; k < kcp; k += 32) {
      __m512i r[16];  // r[p][i]: the pair (k + 2p, k + 2p + 1) of row m + i
      for (int p = 0; p < 16; ++p) {
        const int64_t k2 = k + 2 * p;
        r[p] = k2 < kc && m < mc ? interleave(A + k2 * lda + m, lda, k2 + 1 < kc, mc - m) : _mm512_setzero_si512();
      }
      transpose16(r);
      for (int i = 0; i < 16; ++i) _mm512_store_si512(Ap + (m + i) * as + k, r[i]);
    }
}

EMBER_PACK_TARGET void pack_b_rows(const uint16_t* B, int64_t ldb, int64_t kc, int64_t nc, int64_t kcp, uint16_t* Bp) {
  for (int64_t n0 = 0; n0 < nc; n0 += kPanel) {
    uint16_t* panel = Bp + n0 * kcp;
    for (int64_t p = 0; p < kcp / 2; ++p)
      for (int64_t h = 0; h < kPanel; h += 16) {
        const int64_t k2 = 2 * p;
        const __m512i v =
            k2 < kc ? interleave(B + k2 * ldb + n0 + h, ldb, k2 + 1 < kc, nc - n0 - h) : _mm512_setzero_si512();
        _mm512_store_si512(panel + p * 2 * kPanel + 2 * h, v);
      }
  }
}

EMBER_PACK_TARGET void pack_b_cols(const uint16_t* B, int64_t ldb, int64_t kc, int64_t nc, int64_t kcp, uint16_t* Bp) {
  for (int64_t n0 = 0; n0 < nc; n0 += kPanel) {
    uint16_t* panel = Bp + n0 * kcp;
    for (int64_t h = 0; h < kPanel; h += 16)
      for (int64_t k = 0; k < kcp; k += 32) {
        __m512i r[16];  // r[j][p]: column n0 + h + j's pair p, contiguous in B
        const __mmask32 km = lanes32(kc - k);
        for (int j = 0; j < 16; ++j)
          r[j] = n0 + h + j < nc ? _mm512_maskz_loadu_epi16(km, B + (n0 + h + j) * ldb + k) : _mm512_setzero_si512();
        transpose16(r);
        for (int p = 0; p < 16; ++p) _mm512_store_si512(panel + (k / 2 + p) * 2 * kPanel + 2 * h, r[p]);
      }
  }
}

EMBER_PACK_TARGET void merge(const float* acc, int64_t rows, int64_t n, float* C, int64_t ldc, float alpha,
                             float beta) {
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t h = 0; h < kPanel && h < n; h += 16) {
      const __mmask16 m = lanes16(n - h);
      float* c = C + r * ldc + h;
      __m512 v = _mm512_load_ps(acc + r * kPanel + h);
      if (alpha != 1.f) v = _mm512_mul_ps(v, va);
      if (beta == 1.f) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, c));
      else if (beta != 0.f)  // C unread when beta is 0: NaNs there do not leak through
        v = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m, c), v);
      _mm512_mask_storeu_ps(c, m, v);
    }
}

}  // namespace ember::bf16gemm
#endif
