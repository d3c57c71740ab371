// Complex GEMM through OpenBLAS (cgemm / zgemm), row-major like blas_gemm.h:
// C[M,N] = alpha * op(A)[M,K] @ op(B)[K,N] + beta * C, op transposing when ta / tb.
#pragma once
#include <complex>
#include <cstdint>

namespace ember {

void complex_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, std::complex<float> alpha,
                  const std::complex<float>* A, int64_t lda, const std::complex<float>* B, int64_t ldb,
                  std::complex<float> beta, std::complex<float>* C, int64_t ldc);
void complex_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, std::complex<double> alpha,
                  const std::complex<double>* A, int64_t lda, const std::complex<double>* B, int64_t ldb,
                  std::complex<double> beta, std::complex<double>* C, int64_t ldc);

}  // namespace ember
