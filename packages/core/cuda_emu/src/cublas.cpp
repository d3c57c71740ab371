// The emulator's cuBLAS (built as libcublas.so.13 beside the emulated ember, which opens it as it
// opens NVIDIA's): the entry points ember's cublas_gemm.cpp binds, column-major as cuBLAS's, run on
// the handle's stream, computed by OpenBLAS; TF32 mode is accepted and computed at full precision.
#include <algorithm>
#include <complex>
#include <string>
#include <type_traits>

#include <cblas.h>

#include "cuda_runtime_api.h"

namespace {

constexpr int kSuccess = 0, kNotInitialized = 1, kInvalidValue = 7, kExecutionFailed = 13;
constexpr int kOpN = 0, kOpT = 1, kOpC = 2;

struct Handle {
  cudaStream_t stream = nullptr;
  int math = 0;
};

// The product itself is OpenBLAS's (column-major, as cuBLAS's): the emulated device's GEMMs run at
// CPU speed, so the examples' training steps stay quick.
CBLAS_TRANSPOSE op(int t) { return t == kOpN ? CblasNoTrans : t == kOpT ? CblasTrans : CblasConjTrans; }

template <class T>
struct Gemm final : emu::Work {
  int ta = 0, tb = 0, m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0, batch = 1;
  long long sa = 0, sb = 0, sc = 0;  // the batched form's strides
  T alpha{}, beta{};
  const T *a = nullptr, *b = nullptr;
  T* c = nullptr;
  void run() override {
    for (int i = 0; i < batch; ++i) one(a + i * sa, b + i * sb, c + i * sc);
  }
  void one(const T* a, const T* b, T* c) const {
    if constexpr (std::is_same_v<T, float>)
      scipy_cblas_sgemm(CblasColMajor, op(ta), op(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else if constexpr (std::is_same_v<T, double>)
      scipy_cblas_dgemm(CblasColMajor, op(ta), op(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
      scipy_cblas_cgemm(CblasColMajor, op(ta), op(tb), m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
    else scipy_cblas_zgemm(CblasColMajor, op(ta), op(tb), m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
  }
};

template <class T>
int gemm(void* h, int ta, int tb, int m, int n, int k, const T* alpha, const T* a, int lda, const T* b, int ldb,
         const T* beta, T* c, int ldc, long long sa = 0, long long sb = 0, long long sc = 0, int batch = 1) {
  if (!h) return kNotInitialized;
  const int a_rows = ta == kOpN ? m : k, a_cols = ta == kOpN ? k : m;
  const int b_rows = tb == kOpN ? k : n, b_cols = tb == kOpN ? n : k;
  if (m < 0 || n < 0 || k < 0 || lda < std::max(1, a_rows) || ldb < std::max(1, b_rows) || ldc < std::max(1, m))
    return kInvalidValue;
  if (batch < 0) return kInvalidValue;
  if (m == 0 || n == 0 || batch == 0) return kSuccess;
  auto span = [](int ld, int rows, int cols) { return (size_t(ld) * (cols - 1) + rows) * sizeof(T); };
  for (int i = 0; i < batch; i += std::max(batch - 1, 1)) {  // the first and the last matrices of each operand
    if ((k > 0 && (!emu::is_device_range(a + i * sa, span(lda, a_rows, a_cols)) ||
                   !emu::is_device_range(b + i * sb, span(ldb, b_rows, b_cols)))) ||
        !emu::is_device_range(c + i * sc, span(ldc, m, n)))
      return kExecutionFailed;  // a GPU would fault on the address
  }
  emu::trace("cublas", batch > 1 ? "gemmStridedBatched" : "gemm", size_t(m) * n * k * batch);
  auto* g = new Gemm<T>;
  g->ta = ta, g->tb = tb, g->m = m, g->n = n, g->k = k, g->lda = lda, g->ldb = ldb, g->ldc = ldc;
  g->alpha = *alpha, g->beta = *beta, g->a = a, g->b = b, g->c = c;
  g->sa = sa, g->sb = sb, g->sc = sc, g->batch = batch;
  return emu::enqueue(static_cast<Handle*>(h)->stream, g, "cublas gemm") == cudaSuccess ? kSuccess : kExecutionFailed;
}

}  // namespace

#define CUBLAS_API extern "C" __attribute__((visibility("default")))

CUBLAS_API int cublasCreate_v2(void** h) {
  *h = new Handle;
  return kSuccess;
}
CUBLAS_API int cublasSetStream_v2(void* h, cudaStream_t s) {
  if (!h) return kNotInitialized;
  static_cast<Handle*>(h)->stream = s;
  return kSuccess;
}
CUBLAS_API int cublasSetMathMode(void* h, int mode) {
  if (!h) return kNotInitialized;
  static_cast<Handle*>(h)->math = mode;
  return kSuccess;
}
CUBLAS_API const char* cublasGetStatusString(int s) {
  switch (s) {
    case kSuccess:
      return "CUBLAS_STATUS_SUCCESS";
    case kNotInitialized:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case kInvalidValue:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case kExecutionFailed:
      return "CUBLAS_STATUS_EXECUTION_FAILED (emulator: an operand is not inside device memory)";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}
CUBLAS_API int cublasSgemm_v2(void* h, int ta, int tb, int m, int n, int k, const float* alpha, const float* a, int lda,
                              const float* b, int ldb, const float* beta, float* c, int ldc) {
  return gemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
CUBLAS_API int cublasDgemm_v2(void* h, int ta, int tb, int m, int n, int k, const double* alpha, const double* a,
                              int lda, const double* b, int ldb, const double* beta, double* c, int ldc) {
  return gemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
CUBLAS_API int cublasCgemm_v2(void* h, int ta, int tb, int m, int n, int k, const std::complex<float>* alpha,
                              const std::complex<float>* a, int lda, const std::complex<float>* b, int ldb,
                              const std::complex<float>* beta, std::complex<float>* c, int ldc) {
  return gemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
CUBLAS_API int cublasZgemm_v2(void* h, int ta, int tb, int m, int n, int k, const std::complex<double>* alpha,
                              const std::complex<double>* a, int lda, const std::complex<double>* b, int ldb,
                              const std::complex<double>* beta, std::complex<double>* c, int ldc) {
  return gemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
CUBLAS_API int cublasSgemmStridedBatched(void* h, int ta, int tb, int m, int n, int k, const float* alpha,
                                         const float* a, int lda, long long sa, const float* b, int ldb, long long sb,
                                         const float* beta, float* c, int ldc, long long sc, int batch) {
  return gemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, sa, sb, sc, batch);
}
CUBLAS_API int cublasDgemmStridedBatched(void* h, int ta, int tb, int m, int n, int k, const double* alpha,
                                         const double* a, int lda, long long sa, const double* b, int ldb, long long sb,
                                         const double* beta, double* c, int ldc, long long sc, int batch) {
  return gemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, sa, sb, sc, batch);
}
