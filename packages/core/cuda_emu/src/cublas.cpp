// The emulator's cuBLAS (built as libcublas.so.13 beside the emulated ember, which opens it as it
// opens NVIDIA's): the entry points ember's cublas_gemm.cpp binds, column-major as cuBLAS's, run on
// the handle's stream, computed by OpenBLAS; in TF32 mode a float32 product's operands are first
// rounded to TF32's 10-bit mantissa, as the tensor cores read them (the sums stay float32), unless
// NVIDIA_TF32_OVERRIDE=0, which turns TF32 off in NVIDIA's libraries.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <cblas.h>

#include "cuda_runtime_api.h"

namespace {

constexpr int kSuccess = 0, kNotInitialized = 1, kInvalidValue = 7, kExecutionFailed = 13;
constexpr int kOpN = 0, kOpT = 1, kOpC = 2;
constexpr int kTf32Math = 3;  // CUBLAS_TF32_TENSOR_OP_MATH

struct Handle {
  cudaStream_t stream = nullptr;
  int math = 0;
};

// The product itself is OpenBLAS's (column-major, as cuBLAS's): the emulated device's GEMMs run at
// CPU speed, so the examples' training steps stay quick.
CBLAS_TRANSPOSE op(int t) { return t == kOpN ? CblasNoTrans : t == kOpT ? CblasTrans : CblasConjTrans; }

// x rounded to TF32 (8-bit exponent, 10-bit mantissa: the nearest, ties away from zero).
float to_tf32(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & ~0x1fffu;  // inf and NaN as they are
  std::memcpy(&x, &u, sizeof u);
  return x;
}

// The n elements of a column-major rows x cols matrix with leading dimension ld, from p.
size_t extent(int ld, int rows, int cols) { return rows == 0 || cols == 0 ? 0 : size_t(ld) * (cols - 1) + rows; }

template <class T>
struct Gemm final : emu::Work {
  int ta = 0, tb = 0, m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0, batch = 1;
  long long sa = 0, sb = 0, sc = 0;  // the batched form's strides
  T alpha{}, beta{};
  const T *a = nullptr, *b = nullptr;
  T* c = nullptr;
  bool tf32 = false;
  void run() override {
    for (int i = 0; i < batch; ++i) {
      if constexpr (std::is_same_v<T, float>) {
        if (tf32) {
          const std::vector<float> ra = rounded(a + i * sa, extent(lda, ta == kOpN ? m : k, ta == kOpN ? k : m));
          const std::vector<float> rb = rounded(b + i * sb, extent(ldb, tb == kOpN ? k : n, tb == kOpN ? n : k));
          one(ra.data(), rb.data(), c + i * sc);
          continue;
        }
      }
      one(a + i * sa, b + i * sb, c + i * sc);
    }
  }
  static std::vector<float> rounded(const float* p, size_t n) {
    std::vector<float> r(std::max<size_t>(n, 1));
    for (size_t j = 0; j < n; ++j) r[j] = to_tf32(p[j]);
    return r;
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
  static const bool tf32_off = [] {
    const char* e = std::getenv("NVIDIA_TF32_OVERRIDE");
    return e && std::string(e) == "0";
  }();
  g->tf32 = static_cast<Handle*>(h)->math == kTf32Math && !tf32_off;
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
