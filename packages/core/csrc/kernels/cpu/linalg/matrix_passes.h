// The element passes around LAPACK's calls (CPU): the entries of the backend table's
// MatrixKernels (op bodies: ops/linalg/linalg_lapack.cpp, linalg_factor.cpp, linalg.cpp).
#pragma once
#include <cstdint>

#include "core/scalar.h"
#include "core/tensor.h"

namespace ember::matrix {

// The strict upper triangle of the column-major n x n a set to zero.
template <class T>
void zero_strict_upper(int64_t n, T* a);
// The 1-based order of the first NaN on the diagonal of the column-major n x n a, 0 for none.
template <class T>
int first_nan_diagonal(int64_t n, const T* a);
// det = prod(u_ii) (-1)^swaps, sign = prod(sgn(u_ii)) (-1)^swaps with sgn(NaN) = sgn(0) = 0, and
// log|det|, each written where not null, from getrf's n x n LU and 1-based pivots.
template <class T>
void lu_det(int64_t n, const T* lu, const int* ipiv, T* det, T* sign, T* logabs);
// r (column-major rows x n) = the upper triangle of the first `rows` rows of the column-major
// m x n a; below it r keeps its zeros.
template <class T>
void upper_rows(int64_t m, int64_t n, int64_t rows, const T* a, T* r);
// LAPACK's 1-based row interchanges ipiv on the row-major n x r x: in order (P^T x) or, with
// reverse, undone (P x); a pivot outside [1, n] is skipped.
template <class T>
void row_swaps(int64_t n, int64_t r, const int* ipiv, T* x, bool reverse);

// perm (nb rows of m) = the permutations of k row interchanges each (piv, 1-based, in [1, m]).
void lu_permutation(int64_t nb, int64_t k, int64_t m, const int* piv, int64_t* perm);
// baddbmm's small-problem pass over w (nb x m x p, any strides): w = beta * w + alpha * prod
// (contiguous, w's op-math type) element by element in (b, i, j) order; beta = 0 ignores w.
void scaled_store(const Tensor& w, const Tensor& prod, const Scalar& beta, const Scalar& alpha);

}  // namespace ember::matrix
