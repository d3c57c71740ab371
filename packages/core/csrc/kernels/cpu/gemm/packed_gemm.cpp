#include "kernels/cpu/gemm/packed_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "core/cpu_capability.h"
#include "core/error.h"
#include "core/parallel.h"
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EMBER_PACKED_GEMM_TILES 1
#include "kernels/cpu/gemm/tile512.h"
#include "kernels/cpu/gemm/transpose16.h"
#endif

namespace ember {
namespace {

constexpr int64_t kW = PackedB::kWidth;
// Tile kernels by row count 1..12, so the last rows of M need no scalar loop.
constexpr int kRows = 12;

#ifdef EMBER_PACKED_GEMM_TILES
// R rows x 32 columns: 2R zmm accumulators, the panel's two vectors loaded once per k, A's
// element broadcast. A[r][k] is A[r * lda + k], or A[k * lda + r] when TA (A given transposed,
// or packed k-major). (The unroll pragmas keep the accumulators in registers: without them
// GCC zero-fills a stack copy of both arrays on every call.)
template <int R, bool TA>
__attribute__((target("avx512f"))) void gemm_tile(int64_t K, const float* A, int64_t lda, const float* Bp, float* C,
                                                  int64_t ldc, float alpha, float beta, int64_t n) {
  __m512 c0[R], c1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    c0[r] = c1[r] = _mm512_setzero_ps();
    // C's lines requested now, written after the K loop: a cold C (a fresh 8 MB output) otherwise
    // stalls every store on its read-for-ownership (2048x64x1024: 2.4 -> 1.7 ms)
    __builtin_prefetch(C + r * ldc, 1, 3);
    __builtin_prefetch(C + r * ldc + 16, 1, 3);
  }
  for (int64_t k = 0; k < K; ++k) {
    __m512 b0 = _mm512_load_ps(Bp + k * kW), b1 = _mm512_load_ps(Bp + k * kW + 16);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      __m512 a = _mm512_set1_ps(TA ? A[k * lda + r] : A[r * lda + k]);
      c0[r] = _mm512_fmadd_ps(a, b0, c0[r]);
      c1[r] = _mm512_fmadd_ps(a, b1, c1[r]);
    }
  }
  tile512::store_scaled<R>(c0, c1, C, ldc, alpha, beta, n);
}

using TileFn = void (*)(int64_t, const float*, int64_t, const float*, float*, int64_t, float, float, int64_t);
template <bool TA>
constexpr TileFn kTiles[kRows + 1] = {nullptr,          gemm_tile<1, TA>, gemm_tile<2, TA>,  gemm_tile<3, TA>,
                                      gemm_tile<4, TA>, gemm_tile<5, TA>, gemm_tile<6, TA>,  gemm_tile<7, TA>,
                                      gemm_tile<8, TA>, gemm_tile<9, TA>, gemm_tile<10, TA>, gemm_tile<11, TA>,
                                      gemm_tile<12, TA>};

// Rows 0..M of C, tile by tile, against one panel.
void panel_rows(bool ta, int64_t M, int64_t K, const float* A, int64_t lda, const float* panel, float* C, int64_t ldc,
                float alpha, float beta, int64_t n) {
  const TileFn* tiles = ta ? kTiles<true> : kTiles<false>;
  for (int64_t i = 0, r; i < M; i += r) {
    r = tile_rows(M - i, kRows);
    tiles[r](K, ta ? A + i : A + i * lda, lda, panel, C + i * ldc, ldc, alpha, beta, n);
  }
}

using tile512::lanes;

// panel[k][j] = B[k * ldb + j] for j < n, zero beyond: a copy, row by row.
__attribute__((target("avx512f"))) void pack_rows(const float* B, int64_t ldb, int64_t kc, int64_t n, float* panel) {
  const __mmask16 m0 = lanes(n), m1 = lanes(n - 16);
  for (int64_t k = 0; k < kc; ++k) {
    _mm512_store_ps(panel + k * kW, _mm512_maskz_loadu_ps(m0, B + k * ldb));
    _mm512_store_ps(panel + k * kW + 16, _mm512_maskz_loadu_ps(m1, B + k * ldb + 16));
  }
}

// A given transposed (A[m][k] at At[k * lda + m]): mc rows as tiles of tile_rows rows, each
// k-major with one aligned 16-float vector per k (tile t at dst + t * 16 * kc). Walks along A's
// rows, so each is read once and in order (a tile at a time cost a TLB miss per k when lda is
// large).
__attribute__((target("avx512f"))) void pack_a_transposed(const float* At, int64_t lda, int64_t kc, int64_t mc,
                                                          float* dst) {
  for (int64_t k = 0; k < kc; ++k) {
    const float* src = At + k * lda;
    for (int64_t i = 0, r, t = 0; i < mc; i += r, ++t) {
      r = tile_rows(mc - i, kRows);
      // a full 16-float load where the row still has 16 floats there; masked at its end
      const __m512 v = i + 16 <= mc ? _mm512_loadu_ps(src + i) : _mm512_maskz_loadu_ps(lanes(r), src + i);
      _mm512_store_ps(dst + t * 16 * kc + k * 16, v);
    }
  }
}

// A thread's packing buffer, 64-byte aligned, grown on demand and kept: at most
// (kKC x kNC) floats of B plus (kMC x kKC) of A, about 3 MB.
struct Scratch {
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> p;
  int64_t size = 0;
  float* get(int64_t want) {
    if (want > size) {
      p.reset(static_cast<float*>(std::aligned_alloc(64, (want * 4 + 63) / 64 * 64)));
      EMBER_CHECK(p != nullptr, "sgemm512: out of memory for a ", want * 4, "-byte packing buffer");
      size = want;
    }
    return p.get();
  }
};

// Blocks of K (B's panels of kKC x 32 stay in L1/L2), of M (A's kMC rows in L2), of N (the
// packed B block kept for every block of M).
constexpr int64_t kKC = 512, kMC = 256, kNC = 1024;
inline int64_t blocks(int64_t len, int64_t most) { return (len + most - 1) / most; }
#endif

[[maybe_unused]] void no_kernel() {
  EMBER_CHECK(false, "packed_gemm: no vector kernel on this CPU (check packed_gemm_available first)");
}

}  // namespace

// AVX-512 only: an AVX2 version of these tiles ran at 25 GMAC/s against OpenBLAS's 31-38
// (Haswell kernels) on the LSTM shapes, so AVX2 machines keep BLAS.
bool packed_gemm_available() { return cpu_has_avx512(); }

void pack_b(const float* src, int64_t K, int64_t N, int64_t ld, bool transposed, float* dst) {
  const int64_t panels = (N + kW - 1) / kW;
#ifdef EMBER_PACKED_GEMM_TILES
  for (int64_t p = 0; p < panels; ++p) {
    float* d = dst + p * K * kW;
    const int64_t n0 = p * kW, n = std::min(kW, N - n0);
    if (transposed) pack_panel_transposed(src + n0 * ld, ld, K, n, d);
    else pack_rows(src + n0, ld, K, n, d);
  }
#else
  (void)src, (void)ld, (void)transposed, (void)panels, (void)dst;
  no_kernel();
#endif
}

void packed_gemm(int64_t M, const float* A, int64_t lda, const PackedB& B, float* C, int64_t ldc, bool accumulate) {
  const int64_t K = B.K, N = B.N, W = PackedB::kWidth, panels = (N + W - 1) / W;
  if (M == 0 || N == 0) return;
  if (K == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0.f);
    return;
  }
#ifdef EMBER_PACKED_GEMM_TILES
  // Each chunk of panels carries at least ~64k multiply-adds before a thread is worth it.
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(M * K * W, 1));
  parallel_for(0, panels, grain, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      packed_gemm_panel(M, K, A, lda, B.panel(p), C + p * W, ldc, accumulate, std::min(W, N - p * W));
    }
  });
#else
  (void)panels;
  no_kernel();
#endif
}

void packed_gemm_panel(int64_t M, int64_t K, const float* A, int64_t lda, const float* panel, float* C, int64_t ldc,
                       bool accumulate, int64_t n) {
#ifdef EMBER_PACKED_GEMM_TILES
  panel_rows(false, M, K, A, lda, panel, C, ldc, 1.f, accumulate ? 1.f : 0.f, n);
#else
  no_kernel();
#endif
}

#ifdef EMBER_PACKED_GEMM_TILES
__attribute__((target("avx512f"))) void pack_panel_transposed(const float* Bt, int64_t ldb, int64_t kc, int64_t n,
                                                              float* panel) {
  for (int64_t h = 0; h < kW; h += 16) {
    const int64_t rows = std::min<int64_t>(16, n - h);
    for (int64_t k = 0; k < kc; k += 16) {
      const int64_t kk = std::min<int64_t>(16, kc - k);
      const __mmask16 km = lanes(kk);
      __m512 r[16];
      for (int i = 0; i < 16; ++i)
        r[i] = i < rows ? _mm512_maskz_loadu_ps(km, Bt + (h + i) * ldb + k) : _mm512_setzero_ps();
      transpose16(r);
      for (int i = 0; i < kk; ++i) _mm512_store_ps(panel + (k + i) * kW + h, r[i]);
    }
  }
}
#else
void pack_panel_transposed(const float*, int64_t, int64_t, int64_t, float*) { no_kernel(); }
#endif

// Measured against OpenBLAS 0.3.34 (SkylakeX kernels) on one core, time ratios: 0.65-0.9 for
// M >= 4 with N >= 48 when A is not transposed (NN, NT); about 1.0 for a transposed A with
// N >= 128 (0.95 on 512x128x512), worse below. A single row (a GEMV) and narrow N stay on BLAS,
// and so do large products in every direction (1024^3: 1.00-1.05, 2048^3: 1.08), where
// OpenBLAS's blocking for L2 and L3 pays.
bool sgemm512_wanted(bool ta, bool /*tb*/, int64_t M, int64_t N, int64_t K) {
  if (!packed_gemm_available() || M < 4 || K < 8) return false;
  if (std::min({M, N, K}) >= 512) return false;
  return ta ? N >= 128 : N >= 48;
}

void sgemm512(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
              const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
#ifdef EMBER_PACKED_GEMM_TILES
  if (M <= 0 || N <= 0) return;
  if (K <= 0 || alpha == 0.f) {  // C = beta * C, BLAS's convention (A and B unread; beta 0 writes zeros)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.f ? 0.f : beta * C[i * ldc + j];
    return;
  }
  static thread_local Scratch b_buf, a_buf;
  // even blocks (784 = 2 x 392, not 512 + 272); row blocks whole tiles
  const int64_t kcb = blocks(K, blocks(K, kKC)), mcb = (blocks(M, blocks(M, kMC)) + kRows - 1) / kRows * kRows;
  const int64_t ncb = std::min(N, kNC);
  const bool keep_b = M > mcb;  // several row blocks: pack B's block once and keep it
  float* bp = b_buf.get(kcb * (keep_b ? blocks(ncb, kW) : 1) * kW);
  float* ap = ta ? a_buf.get(kcb * (mcb / kRows + 2) * 16) : nullptr;
  for (int64_t j0 = 0; j0 < N; j0 += ncb) {
    const int64_t nc = std::min(ncb, N - j0), panels = blocks(nc, kW);
    for (int64_t k0 = 0; k0 < K; k0 += kcb) {
      const int64_t kc = std::min(kcb, K - k0);
      const float bt = k0 ? 1.f : beta;
      for (int64_t m0 = 0; m0 < M; m0 += mcb) {
        const int64_t mc = std::min(mcb, M - m0);
        if (ta) pack_a_transposed(A + k0 * lda + m0, lda, kc, mc, ap);
        for (int64_t p = 0; p < panels; ++p) {
          const int64_t n0 = j0 + p * kW, n = std::min(kW, N - n0);
          float* panel = bp + (keep_b ? p * kc * kW : 0);
          if (m0 == 0 || !keep_b) {  // packed just before its first use, while it is in L1
            if (tb) pack_panel_transposed(B + n0 * ldb + k0, ldb, kc, n, panel);
            else pack_rows(B + k0 * ldb + n0, ldb, kc, n, panel);
          }
          float* c = C + m0 * ldc + n0;
          if (!ta) {
            panel_rows(false, mc, kc, A + m0 * lda + k0, lda, panel, c, ldc, alpha, bt, n);
            continue;
          }
          const TileFn* tiles = kTiles<true>;  // packed A: tile t, 16 floats per k
          for (int64_t i = 0, r, t = 0; i < mc; i += r, ++t) {
            r = tile_rows(mc - i, kRows);
            tiles[r](kc, ap + t * 16 * kc, 16, panel, c + i * ldc, ldc, alpha, bt, n);
          }
        }
      }
    }
  }
#else
  (void)ta, (void)tb, (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb, (void)beta,
      (void)C, (void)ldc;
  no_kernel();
#endif
}

}  // namespace ember
