// The bfloat16 GEMM's driver: blocks of op(A) and op(B) packed per thread, the block kernel
// the CPU allows (AMX, else AVX512-BF16), C split between threads as the float32 GEMM does.
#include "bf16_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "../../../core/cpu_bf16.h"
#include "../../../core/error.h"
#include "../../../core/parallel.h"
#include "bf16_blocks.h"

namespace ember {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
bool bf16_gemm_available() { return cpu_has_avx512_bf16(); }

namespace {
using namespace bf16gemm;

// Blocks of k, of rows (A's block, 512 KB, in L2) and of columns (B's packed block, kept for every
// block of rows). A long k block merges C less often: on 1024^3 one thread (AMX), kKC 1024 ran
// at ~580 GFLOPS, 512 at 250-550, 256 at ~200 (a shared, noisy machine: ranges).
constexpr int64_t kKC = 1024, kMC = 256, kNC = 512;
// Below this many multiply-adds one thread beats waking the others; parts on whole AMX blocks.
constexpr int64_t kParallelMacs = int64_t(1) << 20;
constexpr int64_t kAlign = 32;
// Below this many the GIL is kept: its release and re-acquire cost more than the product.
constexpr int64_t kGilMacs = int64_t(1) << 15;

inline int64_t blocks(int64_t len, int64_t most) { return (len + most - 1) / most; }

// A thread's 64-byte aligned packing buffer, grown on demand and kept.
struct Scratch {
  struct Free {
    void operator()(uint16_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint16_t, Free> p;
  int64_t size = 0;
  uint16_t* get(int64_t want) {
    if (want > size) {
      p.reset(static_cast<uint16_t*>(std::aligned_alloc(64, (want * 2 + 63) / 64 * 64)));
      EMBER_CHECK(p != nullptr, "bf16 gemm: out of memory for a ", want * 2, "-byte packing buffer");
      size = want;
    }
    return p.get();
  }
};

void gemm_1t(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A, int64_t lda,
             const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  // AMX's 32-row blocks pay only where there are rows to fill them
  const BlockFn kernel = cpu_has_amx_bf16() && M >= 16 ? block_amx : block_avx512_bf16;
  static thread_local Scratch a_buf, b_buf;
  // even blocks of k in whole AMX steps (784 = 2 x 416, not 512 + 272)
  const int64_t kcb = round_up(blocks(K, blocks(K, kKC)), kStep);
  const int64_t mcb = round_up(blocks(M, blocks(M, kMC)), 32), ncb = std::min(N, kNC);
  uint16_t* ap = a_buf.get(mcb * a_stride(kcb));
  uint16_t* bp = b_buf.get(kcb * round_up(ncb, kPanel));
  for (int64_t n0 = 0; n0 < N; n0 += ncb) {
    const int64_t nc = std::min(ncb, N - n0);
    for (int64_t k0 = 0; k0 < K; k0 += kcb) {
      const int64_t kc = std::min(kcb, K - k0), kcp = round_up(kc, kStep);
      if (tb) pack_b_cols(B + n0 * ldb + k0, ldb, kc, nc, kcp, bp);
      else pack_b_rows(B + k0 * ldb + n0, ldb, kc, nc, kcp, bp);
      for (int64_t m0 = 0; m0 < M; m0 += mcb) {
        const int64_t mc = std::min(mcb, M - m0);
        if (ta) pack_a_cols(A + k0 * lda + m0, lda, mc, kc, kcp, ap);
        else pack_a_rows(A + m0 * lda + k0, lda, mc, kc, kcp, ap);
        kernel(ap, bp, mc, nc, kcp, C + m0 * ldc + n0, ldc, alpha, k0 ? 1.f : beta);
      }
    }
  }
}

}  // namespace

void bf16_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A, int64_t lda,
               const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0 || alpha == 0.f) {  // C = beta * C, BLAS's convention (A and B unread; beta 0 writes zeros)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.f ? 0.f : beta * C[i * ldc + j];
    return;
  }
  if (M * N * K < kGilMacs) return gemm_1t(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  GilRelease nogil;
  const int nt = get_num_threads();
  if (nt <= 1 || in_parallel_region() || M * N * K < kParallelMacs || std::max(M, N) < 2 * kAlign)
    return gemm_1t(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  // Split the longer side of C: each part then re-packs only the shorter operand.
  const bool rows = M >= N;
  const int64_t len = rows ? M : N;
  const int64_t parts = std::min<int64_t>(nt, len / kAlign);
  const int64_t block = round_up(blocks(len, parts), kAlign);
  parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t s = p * block, e = std::min(len, s + block);
      if (s >= e) continue;
      if (rows)  // rows s..e of op(A) and of C
        gemm_1t(ta, tb, e - s, N, K, alpha, ta ? A + s : A + s * lda, lda, B, ldb, beta, C + s * ldc, ldc);
      else  // columns s..e of op(B) and of C
        gemm_1t(ta, tb, M, e - s, K, alpha, A, lda, tb ? B + s * ldb : B + s, ldb, beta, C + s, ldc);
    }
  });
}

#else
bool bf16_gemm_available() { return false; }
void bf16_gemm(bool, bool, int64_t, int64_t, int64_t, float, const uint16_t*, int64_t, const uint16_t*, int64_t, float,
               float*, int64_t) {
  EMBER_CHECK(false, "bf16 gemm: no bfloat16 kernel on this CPU (check bf16_gemm_available first)");
}
#endif

}  // namespace ember
