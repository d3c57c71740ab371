#include "kernels/cpu/gemm/blas_gemm.h"

#include <cblas.h>

#include <algorithm>

#include "core/parallel.h"
#include "kernels/cpu/gemm/packed_gemm.h"

extern "C" void scipy_openblas_set_num_threads(int);

namespace ember {
namespace {

// Below this many multiply-adds one call on one thread beats waking the others.
constexpr int64_t kParallelMacs = int64_t(1) << 21;
// Block edges on multiples of the micro-kernel's tile, so no thread gets ragged edges.
constexpr int64_t kAlign = 16;

inline void call(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                 const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (sgemm512_wanted(ta, tb, M, N, K)) return sgemm512(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A,
                    lda, B, ldb, beta, C, ldc);
}
inline void call(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
                 const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  scipy_cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A,
                    lda, B, ldb, beta, C, ldc);
}

template <class T>
void gemm_split(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
                int64_t ldb, T beta, T* C, int64_t ldc) {
  int nt = get_num_threads();
  if (nt <= 1 || in_parallel_region() || M * N * K < kParallelMacs || std::max(M, N) < 2 * kAlign) {
    call(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  GilRelease nogil;
  // Split the longer side of C: each block then re-packs only the shorter operand.
  bool rows = M >= N;
  int64_t len = rows ? M : N;
  int64_t parts = std::min<int64_t>(nt, len / kAlign);
  int64_t block = ((len + parts - 1) / parts + kAlign - 1) / kAlign * kAlign;
  parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      int64_t s = p * block, e = std::min(len, s + block);
      if (s >= e) continue;
      if (rows)  // rows s..e of op(A) and of C
        call(ta, tb, e - s, N, K, alpha, ta ? A + s : A + s * lda, lda, B, ldb, beta, C + s * ldc, ldc);
      else  // columns s..e of op(B) and of C
        call(ta, tb, M, e - s, K, alpha, A, lda, tb ? B + s * ldb : B + s, ldb, beta, C + s, ldc);
    }
  });
}

}  // namespace

void blas_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
               const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  gemm_split(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
void blas_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
               const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  gemm_split(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace ember
