// The VDPBF16PS block kernel: tiles of up to 12 rows x 32 columns, 24 zmm accumulators, each
// instruction adding the products of one k-pair (A's pair broadcast, B's panel row of 32 pairs).
#include <cstring>

#include "bf16_blocks.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define EMBER_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,fma")))

namespace ember::bf16gemm {
namespace {

constexpr int kRows = 12;

// acc (R rows of 32 floats) = A[R rows of kcp] @ panel. (The unroll pragmas keep the
// accumulators in registers.)
template <int R>
EMBER_BF16_TARGET void tile(const uint16_t* A, int64_t kcp, const uint16_t* panel, float* acc) {
  const int64_t as = a_stride(kcp);
  __m512 c0[R], c1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) c0[r] = c1[r] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kcp / 2; ++p) {
    const __m512bh b0 = (__m512bh)_mm512_load_si512(panel + p * 2 * kPanel);
    const __m512bh b1 = (__m512bh)_mm512_load_si512(panel + p * 2 * kPanel + kPanel);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      uint32_t pair;
      std::memcpy(&pair, A + r * as + 2 * p, sizeof pair);
      const __m512bh a = (__m512bh)_mm512_set1_epi32(int(pair));
      c0[r] = _mm512_dpbf16_ps(c0[r], a, b0);
      c1[r] = _mm512_dpbf16_ps(c1[r], a, b1);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    _mm512_store_ps(acc + r * kPanel, c0[r]);
    _mm512_store_ps(acc + r * kPanel + 16, c1[r]);
  }
}

using TileFn = void (*)(const uint16_t*, int64_t, const uint16_t*, float*);
constexpr TileFn kTiles[kRows + 1] = {nullptr, tile<1>, tile<2>, tile<3>,  tile<4>,  tile<5>, tile<6>,
                                      tile<7>, tile<8>, tile<9>, tile<10>, tile<11>, tile<12>};

}  // namespace

void block_avx512_bf16(const uint16_t* Ap, const uint16_t* Bp, int64_t mc, int64_t nc, int64_t kcp, float* C,
                       int64_t ldc, float alpha, float beta) {
  alignas(64) float acc[kRows * kPanel];
  for (int64_t n0 = 0; n0 < nc; n0 += kPanel) {
    const uint16_t* panel = Bp + n0 * kcp;
    const int64_t n = nc - n0 < kPanel ? nc - n0 : kPanel;
    for (int64_t i = 0; i < mc; i += kRows) {
      const int64_t r = mc - i < kRows ? mc - i : kRows;
      kTiles[r](Ap + i * a_stride(kcp), kcp, panel, acc);
      merge(acc, r, n, C + i * ldc + n0, ldc, alpha, beta);
    }
  }
}

}  // namespace ember::bf16gemm
#endif
