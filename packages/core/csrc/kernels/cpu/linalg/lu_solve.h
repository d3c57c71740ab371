// Solves with a LAPACK LU factorisation (getrf's col-major LU and 1-based row interchanges), as
// getrs("N") does, in blocks: each block of rows takes one GEMM update from the rows already
// solved (ember's blas_gemm, so float32 runs on the AVX-512 tiles), then a small triangular solve.
// OpenBLAS's getrs ran its triangular solves at ~18 GMAC/s on 256x256 with 256 right-hand sides.
#pragma once
#include <cstdint>

namespace ember {

// B (row-major n x m: each row's m values contiguous) := A^{-1} B for the LU of A in `lu`
// (col-major n x n). Row-major B lets every step run along whole rows of B.
void lu_solve_blocked(int64_t n, int64_t m, const float* lu, const int* ipiv, float* b);
void lu_solve_blocked(int64_t n, int64_t m, const double* lu, const int* ipiv, double* b);

}  // namespace ember
