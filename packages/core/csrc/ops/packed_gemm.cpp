#include "packed_gemm.h"

#include <algorithm>

#include "../core/cpu_capability.h"
#include "../core/error.h"
#include "../core/parallel.h"
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "tile512.h"
#endif

namespace ember {
namespace {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// R rows x 32 columns: 2R zmm accumulators, B's two vectors loaded once per k.
template <int R>
__attribute__((target("avx512f"))) void tile512(int64_t K, const float* A, int64_t lda, const float* Bp, float* C,
                                                 int64_t ldc, bool acc, int64_t n) {
  __m512 c0[R], c1[R];
  for (int r = 0; r < R; ++r) c0[r] = c1[r] = _mm512_setzero_ps();
  for (int64_t k = 0; k < K; ++k) {
    __m512 b0 = _mm512_load_ps(Bp + k * 32), b1 = _mm512_load_ps(Bp + k * 32 + 16);
    for (int r = 0; r < R; ++r) {
      __m512 a = _mm512_set1_ps(A[r * lda + k]);
      c0[r] = _mm512_fmadd_ps(a, b0, c0[r]);
      c1[r] = _mm512_fmadd_ps(a, b1, c1[r]);
    }
  }
  tile::store<R>(c0, c1, C, ldc, acc, n);
}

using TileFn = void (*)(int64_t, const float*, int64_t, const float*, float*, int64_t, bool, int64_t);

// Tile kernels by row count 1..12, so the last rows of M need no scalar loop.
constexpr int kRows512 = 12;
constexpr TileFn kTiles512[kRows512 + 1] = {nullptr,       tile512<1>,  tile512<2>, tile512<3>, tile512<4>,
                                            tile512<5>,    tile512<6>,  tile512<7>, tile512<8>, tile512<9>,
                                            tile512<10>,   tile512<11>, tile512<12>};
#endif

[[maybe_unused]] void no_kernel() {
  EMBER_CHECK(false, "packed_gemm: no vector kernel on this CPU (check packed_gemm_available first)");
}

}  // namespace

// AVX-512 only: an AVX2 version of these tiles ran at 25 GMAC/s against OpenBLAS's 31-38
// (Haswell kernels) on the LSTM shapes, so AVX2 machines keep BLAS.
bool packed_gemm_available() { return cpu_has_avx512(); }

PackedB::PackedB(const float* src, int64_t K, int64_t N, int64_t ldk, int64_t ldn) : K_(K), N_(N) {
  const int64_t panels = (N + kWidth - 1) / kWidth;
  data_ = empty({std::max<int64_t>(panels * K * kWidth, 1)}, ScalarType::Float32);
  for (int64_t p = 0; p < panels; ++p) {
    float* d = data_.data<float>() + p * K * kWidth;
    const int64_t n0 = p * kWidth, n = std::min(kWidth, N - n0);
    for (int64_t k = 0; k < K; ++k) {
      float* row = d + k * kWidth;
      for (int64_t j = 0; j < n; ++j) row[j] = src[k * ldk + (n0 + j) * ldn];
      for (int64_t j = n; j < kWidth; ++j) row[j] = 0.f;
    }
  }
}

void packed_gemm(int64_t M, const float* A, int64_t lda, const PackedB& B, float* C, int64_t ldc, bool accumulate) {
  const int64_t K = B.K(), N = B.N(), W = PackedB::kWidth, panels = (N + W - 1) / W;
  if (M == 0 || N == 0) return;
  if (K == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0.f);
    return;
  }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
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

void packed_gemm_panel(int64_t M, int64_t K, const float* A, int64_t lda, const float* panel, float* C,
                       int64_t ldc, bool accumulate, int64_t n) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  for (int64_t i = 0, r; i < M; i += r) {
    r = tile_rows(M - i, kRows512);
    kTiles512[r](K, A + i * lda, lda, panel, C + i * ldc, ldc, accumulate, n);
  }
#else
  no_kernel();
#endif
}

}  // namespace ember
