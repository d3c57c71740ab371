#include "kernels/cpu/linalg/lu_solve.h"

#include <algorithm>
#include <utility>

#include "core/cpu_capability.h"
#include "kernels/cpu/gemm/blas_gemm.h"

namespace ember {
namespace {

constexpr int64_t kBlock = 64;  // rows per block: the GEMM updates are then 64 columns wide

// The diagonal block's own solve, rows [k0, k1) of row-major B (m columns): unit lower (forward)
// or upper (backward, dividing by the diagonal). Each step is an axpy along a whole row of B.
template <class T>
inline void diag_solve(bool lower, int64_t n, int64_t m, int64_t k0, int64_t k1, const T* a, T* b) {
  if (lower) {
    for (int64_t q = k0; q < k1; ++q)
      for (int64_t i = q + 1; i < k1; ++i) {
        const T l = a[i + q * n];
        T *y = b + i * m, *x = b + q * m;
        for (int64_t c = 0; c < m; ++c) y[c] -= l * x[c];
      }
    return;
  }
  for (int64_t q = k1 - 1; q >= k0; --q) {
    T* x = b + q * m;
    const T d = T(1) / a[q + q * n];
    for (int64_t c = 0; c < m; ++c) x[c] *= d;
    for (int64_t i = k0; i < q; ++i) {
      const T u = a[i + q * n];
      T* y = b + i * m;
      for (int64_t c = 0; c < m; ++c) y[c] -= u * x[c];
    }
  }
}

template <class T>
void diag_solve_default(bool lower, int64_t n, int64_t m, int64_t k0, int64_t k1, const T* a, T* b) {
  diag_solve(lower, n, m, k0, k1, a, b);
}
#if EMBER_HAVE_TARGETS
template <class T>
EMBER_TARGET_AVX512 void diag_solve_avx512(bool lower, int64_t n, int64_t m, int64_t k0, int64_t k1, const T* a, T* b) {
  diag_solve(lower, n, m, k0, k1, a, b);
}
#endif

template <class T>
void solve(int64_t n, int64_t m, const T* a, const int* ip, T* b) {
  for (int64_t i = 0; i < n; ++i) {  // row interchanges, in order (LAPACK's laswp)
    const int64_t p = ip[i] - 1;
    if (p != i) std::swap_ranges(b + i * m, b + (i + 1) * m, b + p * m);
  }
  auto diag = diag_solve_default<T>;
#if EMBER_HAVE_TARGETS
  if (cpu_has_avx512()) diag = diag_solve_avx512<T>;
#endif
  // The factor's block (rows r0.., columns q0..) read as a row-major matrix is transposed, starting
  // at a + r0 + q0 * n with rows n apart: each update is blas_gemm(ta = true).
  for (int64_t k0 = 0; k0 < n; k0 += kBlock) {  // L y = b, top down
    const int64_t k1 = std::min(n, k0 + kBlock);
    if (k0 > 0) blas_gemm(true, false, k1 - k0, m, k0, T(-1), a + k0, n, b, m, T(1), b + k0 * m, m);
    diag(true, n, m, k0, k1, a, b);
  }
  for (int64_t k1 = n; k1 > 0; k1 -= kBlock) {  // U x = y, bottom up
    const int64_t k0 = std::max<int64_t>(0, k1 - kBlock);
    if (k1 < n)
      blas_gemm(true, false, k1 - k0, m, n - k1, T(-1), a + k0 + k1 * n, n, b + k1 * m, m, T(1), b + k0 * m, m);
    diag(false, n, m, k0, k1, a, b);
  }
}

}  // namespace

void lu_solve_blocked(int64_t n, int64_t m, const float* lu, const int* ipiv, float* b) { solve(n, m, lu, ipiv, b); }
void lu_solve_blocked(int64_t n, int64_t m, const double* lu, const int* ipiv, double* b) { solve(n, m, lu, ipiv, b); }

}  // namespace ember
