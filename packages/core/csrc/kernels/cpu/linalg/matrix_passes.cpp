// Element passes of the LAPACK-backed ops on one matrix (kernels/backend.h, MatrixKernels):
// the triangles, determinants and row interchanges around LAPACK's calls, and the pivots'
// permutations. The op bodies allocate the buffers and loop over the batch.
#include "kernels/cpu/linalg/matrix_passes.h"

#include <algorithm>
#include <cmath>

#include "core/half.h"

namespace ember::matrix {

template <class T>
void zero_strict_upper(int64_t n, T* a) {
  for (int64_t j = 0; j < n; ++j)  // column-major: the strict upper part is a[j * n + i], i < j
    for (int64_t i = 0; i < j; ++i) a[j * n + i] = T(0);
}

template <class T>
int first_nan_diagonal(int64_t n, const T* a) {
  for (int64_t j = 0; j < n; ++j)
    if (std::isnan(a[j * n + j])) return int(j + 1);
  return 0;
}

template <class T>
void lu_det(int64_t n, const T* lu, const int* ipiv, T* det, T* sign, T* logabs) {
  T sgn = 1, prod = 1, lg = 0, piv = 1;
  for (int64_t i = 0; i < n; ++i) {
    T u = lu[i * n + i];
    if (ipiv[i] != i + 1) piv = -piv;
    prod *= u;
    sgn *= T((u > 0) - (u < 0));
    lg += std::log(std::abs(u));
  }
  if (det) *det = prod * piv;
  if (sign) *sign = sgn * piv;
  if (logabs) *logabs = lg;
}

template <class T>
void upper_rows(int64_t m, int64_t n, int64_t rows, const T* a, T* r) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i <= std::min(j, rows - 1); ++i) r[j * rows + i] = a[j * m + i];
}

template <class T>
void row_swaps(int64_t n, int64_t r, const int* ipiv, T* x, bool reverse) {
  auto swap_rows = [&](int64_t i) {
    int64_t j = ipiv[i] - 1;
    if (j != i && j >= 0 && j < n) std::swap_ranges(x + i * r, x + (i + 1) * r, x + j * r);
  };
  if (!reverse)
    for (int64_t i = 0; i < n; ++i) swap_rows(i);
  else
    for (int64_t i = n - 1; i >= 0; --i) swap_rows(i);
}

#define EMBER_MATRIX_PASSES(T)                                          \
  template void zero_strict_upper<T>(int64_t, T*);                      \
  template int first_nan_diagonal<T>(int64_t, const T*);                \
  template void lu_det<T>(int64_t, const T*, const int*, T*, T*, T*);   \
  template void upper_rows<T>(int64_t, int64_t, int64_t, const T*, T*); \
  template void row_swaps<T>(int64_t, int64_t, const int*, T*, bool);
EMBER_MATRIX_PASSES(float)
EMBER_MATRIX_PASSES(double)
#undef EMBER_MATRIX_PASSES

void lu_permutation(int64_t nb, int64_t k, int64_t m, const int* piv, int64_t* perm) {
  for (int64_t b = 0; b < nb; ++b) {
    int64_t* q = perm + b * m;
    for (int64_t i = 0; i < m; ++i) q[i] = i;
    for (int64_t i = 0; i < std::min(k, m); ++i) std::swap(q[i], q[int64_t(piv[b * k + i]) - 1]);
  }
}

void scaled_store(const Tensor& w, const Tensor& prod, const Scalar& beta, const Scalar& alpha) {
  const int64_t nb = w.size(0), m = w.size(1), p = w.size(2);
  const int64_t s0 = w.stride(0), s1 = w.stride(1), s2 = w.stride(2);
  EMBER_DISPATCH_NO_BOOL(w.dtype(), "baddbmm", [&] {
    using T = opmath_t<scalar_t>;
    const T be = beta.to<T>(), al = alpha.to<T>();
    const bool zero_beta = beta.to_double() == 0;
    const T* src = prod.data<T>();
    scalar_t* dst = w.data<scalar_t>();
    for (int64_t b = 0; b < nb; ++b)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < p; ++j) {
          scalar_t& r = dst[b * s0 + i * s1 + j * s2];
          const T acc = src[(b * m + i) * p + j];
          r = static_cast<scalar_t>(zero_beta ? al * acc : static_cast<T>(r) * be + al * acc);
        }
  });
}

}  // namespace ember::matrix
