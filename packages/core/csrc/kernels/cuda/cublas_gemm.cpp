// The CUDA backend's GEMM entries on cuBLAS, which is opened with dlopen at the first product: the
// wheel links no cuBLAS (a CPU-only user never needs one), and a machine with PyTorch's CUDA wheels
// has it as NVIDIA's pip package (found through the locator ember.cuda registers). The few entry
// points are declared here from cuBLAS's stable C ABI (cublas_api.h), so building needs no cuBLAS.
// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the operands swap places.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <complex>
#include <mutex>
#include <string>

#include "core/error.h"
#include "core/scalar_type.h"
#include "kernels/cuda/cublas_gemm.h"
#include "kernels/cuda/cuda_runtime_api.h"
#include "kernels/cuda/device_of.h"
#include "kernels/cuda/stream.h"

namespace ember::cuda {

namespace {

using Handle = void*;              // cublasHandle_t
using Status = int;                // cublasStatus_t; 0 is CUBLAS_STATUS_SUCCESS
constexpr int kOpN = 0, kOpT = 1;  // cublasOperation_t
constexpr int kMaxDevices = 64;

template <class T>
using GemmFn = Status (*)(Handle, int, int, int, int, int, const T*, const T*, int, const T*, int, const T*, T*, int);
// cublas<t>gemmStridedBatched: the strides are long long, the batch count an int
template <class T>
using BatchedFn = Status (*)(Handle, int, int, int, int, int, const T*, const T*, int, long long, const T*, int,
                             long long, const T*, T*, int, long long, int);

struct Cublas {
  Status (*create)(Handle*) = nullptr;
  Status (*set_stream)(Handle, cudaStream_t) = nullptr;
  Status (*set_math_mode)(Handle, int) = nullptr;  // cublasMath_t
  const char* (*status_string)(Status) = nullptr;
  GemmFn<float> sgemm = nullptr;
  GemmFn<double> dgemm = nullptr;
  // cuComplex / cuDoubleComplex have std::complex's layout (two parts, real first)
  GemmFn<std::complex<float>> cgemm = nullptr;
  GemmFn<std::complex<double>> zgemm = nullptr;
  BatchedFn<float> sgemm_batched = nullptr;
  BatchedFn<double> dgemm_batched = nullptr;
  std::array<Handle, kMaxDevices> handles{};
};

LibraryLocator g_locator = nullptr;
// float32 products may use TF32 tensor cores: ember.backends.cuda.matmul.allow_tf32 /
// set_float32_matmul_precision("high"), off by default as in PyTorch.
std::atomic<bool> g_allow_tf32{false};
// Convolutions' products follow ember.backends.cudnn.allow_tf32 instead (on by default, as PyTorch's
// cuDNN convolutions), while a ConvMath lives on the calling thread.
std::atomic<bool> g_conv_allow_tf32{true};
thread_local bool t_conv_math = false;
constexpr int kDefaultMath = 0, kTf32Math = 3;  // CUBLAS_DEFAULT_MATH, CUBLAS_TF32_TENSOR_OP_MATH

void* open_cublas() {
  static const char* const kNames[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
  std::string errors;
  for (const char* name : kNames) {
    if (void* h = dlopen(name, RTLD_NOW | RTLD_GLOBAL)) return h;
    errors += std::string("\n  ") + dlerror();
    if (!g_locator) continue;
    const std::string path = g_locator(name);
    if (path.empty()) continue;
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) return h;
    errors += std::string("\n  ") + dlerror();
  }
  fail(ErrorKind::Runtime,
       "CUDA matrix products need cuBLAS, which could not be loaded (install NVIDIA's nvidia-cublas package, or "
       "put libcublas on LD_LIBRARY_PATH):",
       errors);
}

template <class F>
void bind(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  EMBER_CHECK(fn != nullptr, "cuBLAS has no ", name, " (", dlerror(), ")");
}

const Cublas& cublas() {
  static const Cublas lib = [] {
    Cublas c;
    void* h = open_cublas();
    bind(h, c.create, "cublasCreate_v2");
    bind(h, c.set_stream, "cublasSetStream_v2");
    bind(h, c.set_math_mode, "cublasSetMathMode");
    bind(h, c.status_string, "cublasGetStatusString");
    bind(h, c.sgemm, "cublasSgemm_v2");
    bind(h, c.dgemm, "cublasDgemm_v2");
    bind(h, c.cgemm, "cublasCgemm_v2");
    bind(h, c.zgemm, "cublasZgemm_v2");
    bind(h, c.sgemm_batched, "cublasSgemmStridedBatched");
    bind(h, c.dgemm_batched, "cublasDgemmStridedBatched");
    return c;
  }();
  return lib;
}

void check(Status s, const char* what) {
  EMBER_CHECK(s == 0, "CUDA error: ", what, " failed: ", cublas().status_string(s));
}

Handle handle_for(int device) {
  static std::mutex mu;
  EMBER_CHECK(device < kMaxDevices, "CUDA error: device index ", device, " is past ember's ", kMaxDevices);
  Cublas& c = const_cast<Cublas&>(cublas());
  const std::lock_guard<std::mutex> lock(mu);
  Handle& h = c.handles[static_cast<size_t>(device)];
  if (!h) check(c.create(&h), "cublasCreate");
  // every call goes on the calling thread's current stream, as ember's kernels do
  check(c.set_stream(h, current_stream(device)), "cublasSetStream");
  const bool tf32 = (t_conv_math ? g_conv_allow_tf32 : g_allow_tf32).load(std::memory_order_relaxed);
  check(c.set_math_mode(h, tf32 ? kTf32Math : kDefaultMath), "cublasSetMathMode");
  return h;
}

int as_int(int64_t v, const char* what) {
  EMBER_CHECK(v <= INT_MAX, "CUDA matrix product: ", what, " = ", v, " is past cuBLAS's 32-bit sizes");
  return static_cast<int>(v);
}

template <class T>
void gemm(GemmFn<T> fn, bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
          int64_t ldb, T beta, T* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  // the device C lives on, made current for the call (cuBLAS handles belong to one device each)
  const int device = device_of(C, "a matrix product");
  const LaunchDevice on(device);
  check(fn(handle_for(device), tb ? kOpT : kOpN, ta ? kOpT : kOpN, as_int(N, "N"), as_int(M, "M"), as_int(K, "K"),
           &alpha, B, as_int(ldb, "ldb"), A, as_int(lda, "lda"), &beta, C, as_int(ldc, "ldc")),
        "cublas gemm");
}

template <class T>
void gemm_batched(BatchedFn<T> fn, bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda,
                  int64_t sa, const T* B, int64_t ldb, int64_t sb, T beta, T* C, int64_t ldc, int64_t sc,
                  int64_t batch) {
  if (M == 0 || N == 0 || batch == 0) return;
  const int device = device_of(C, "a batched matrix product");
  const LaunchDevice on(device);
  for (int64_t done = 0; done < batch;) {
    const int n = static_cast<int>(std::min<int64_t>(batch - done, INT_MAX));
    check(fn(handle_for(device), tb ? kOpT : kOpN, ta ? kOpT : kOpN, as_int(N, "N"), as_int(M, "M"), as_int(K, "K"),
             &alpha, B + done * sb, as_int(ldb, "ldb"), sb, A + done * sa, as_int(lda, "lda"), sa, &beta, C + done * sc,
             as_int(ldc, "ldc"), sc, n),
          "cublas strided batched gemm");
    done += n;
  }
}

}  // namespace

void set_library_locator(LibraryLocator locator) { g_locator = locator; }
void set_allow_tf32(bool allow) { g_allow_tf32 = allow; }
void set_conv_allow_tf32(bool allow) { g_conv_allow_tf32 = allow; }

ConvMath::ConvMath() : prev_(t_conv_math) { t_conv_math = true; }
ConvMath::~ConvMath() { t_conv_math = prev_; }

void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
           int64_t ldb, float beta, float* C, int64_t ldc) {
  gemm(cublas().sgemm, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void dgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
           const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  gemm(cublas().dgemm, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void cgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, std::complex<float> alpha, const std::complex<float>* A,
           int64_t lda, const std::complex<float>* B, int64_t ldb, std::complex<float> beta, std::complex<float>* C,
           int64_t ldc) {
  gemm(cublas().cgemm, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void zgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, std::complex<double> alpha, const std::complex<double>* A,
           int64_t lda, const std::complex<double>* B, int64_t ldb, std::complex<double> beta, std::complex<double>* C,
           int64_t ldc) {
  gemm(cublas().zgemm, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void sgemm_batched(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                   int64_t sa, const float* B, int64_t ldb, int64_t sb, float beta, float* C, int64_t ldc, int64_t sc,
                   int64_t batch) {
  gemm_batched(cublas().sgemm_batched, ta, tb, M, N, K, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}

void dgemm_batched(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
                   int64_t sa, const double* B, int64_t ldb, int64_t sb, double beta, double* C, int64_t ldc,
                   int64_t sc, int64_t batch) {
  gemm_batched(cublas().dgemm_batched, ta, tb, M, N, K, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}

void igemm(ScalarType dt, int64_t, int64_t, int64_t, double, double, const void*, const void*, void*) {
  // aten has no integer GEMM on CUDA
  fail(ErrorKind::NotImplemented, "\"addmm_cuda\" not implemented for '", legacy_name(dt), "'");
}

}  // namespace ember::cuda
