// Row-major GEMM through OpenBLAS on ember's own threads.
//
// OpenBLAS runs single-threaded (set_num_threads keeps it at 1); a large product is
// split into row or column blocks, one single-threaded BLAS call per ember thread.
// Two thread pools on the same cores spin against each other between calls (measured:
// a 4096x1024 Linear fwd+bwd at 2 threads ran 0.75x PyTorch's speed with both pools).
// LAPACK therefore runs on one thread per matrix; batches spread over ember's threads.
// (Lending OpenBLAS the threads for one factorisation cost 8 ms per call to wake them.)
#pragma once
#include <cstdint>

namespace ember {

// C[M,N] = alpha * op(A)[M,K] @ op(B)[K,N] + beta * C; op transposes when ta / tb.
// Float and double only; lda/ldb/ldc are row-major leading dimensions.
void blas_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
               const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
void blas_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
               const double* B, int64_t ldb, double beta, double* C, int64_t ldc);

}  // namespace ember
