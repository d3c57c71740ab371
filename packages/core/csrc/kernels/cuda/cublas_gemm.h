// GemmKernels' CUDA entries (kernels/cuda/cublas_gemm.cpp): cuBLAS with GemmKernels' row-major
// convention; integer products raise aten's "addmm_cuda" error.
#pragma once
#include <complex>
#include <cstdint>

#include "core/scalar_type.h"

namespace ember::cuda {

void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
           int64_t ldb, float beta, float* C, int64_t ldc);
void dgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
           const double* B, int64_t ldb, double beta, double* C, int64_t ldc);
void cgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, std::complex<float> alpha, const std::complex<float>* A,
           int64_t lda, const std::complex<float>* B, int64_t ldb, std::complex<float> beta, std::complex<float>* C,
           int64_t ldc);
void zgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, std::complex<double> alpha, const std::complex<double>* A,
           int64_t lda, const std::complex<double>* B, int64_t ldb, std::complex<double> beta, std::complex<double>* C,
           int64_t ldc);
// GemmKernels::Batched on cublas<t>gemmStridedBatched (batches past INT_MAX in several calls).
void sgemm_batched(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                   int64_t sa, const float* B, int64_t ldb, int64_t sb, float beta, float* C, int64_t ldc, int64_t sc,
                   int64_t batch);
void dgemm_batched(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
                   int64_t sa, const double* B, int64_t ldb, int64_t sb, double beta, double* C, int64_t ldc,
                   int64_t sc, int64_t batch);
// While one lives, the calling thread's float32 products are a convolution's: TF32 as
// ember.backends.cudnn.allow_tf32 says, not the matmul flag.
class ConvMath {
 public:
  ConvMath();
  ~ConvMath();
  ConvMath(const ConvMath&) = delete;
  ConvMath& operator=(const ConvMath&) = delete;

 private:
  bool prev_;
};

void igemm(ScalarType dt, int64_t M, int64_t N, int64_t K, double alpha, double beta, const void* A, const void* B,
           void* C);

}  // namespace ember::cuda
