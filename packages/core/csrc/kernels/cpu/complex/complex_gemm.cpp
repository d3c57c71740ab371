// One single-threaded OpenBLAS call per product (see blas_gemm.h for why OpenBLAS keeps one thread).
#include "kernels/cpu/complex/complex_gemm.h"

#include <cblas.h>

#include "core/parallel.h"

namespace ember {

void complex_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, std::complex<float> alpha,
                  const std::complex<float>* A, int64_t lda, const std::complex<float>* B, int64_t ldb,
                  std::complex<float> beta, std::complex<float>* C, int64_t ldc) {
  GilRelease nogil;
  scipy_cblas_cgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, &alpha, A,
                    lda, B, ldb, &beta, C, ldc);
}
void complex_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, std::complex<double> alpha,
                  const std::complex<double>* A, int64_t lda, const std::complex<double>* B, int64_t ldb,
                  std::complex<double> beta, std::complex<double>* C, int64_t ldc) {
  GilRelease nogil;
  scipy_cblas_zgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, &alpha, A,
                    lda, B, ldb, &beta, C, ldc);
}

}  // namespace ember
