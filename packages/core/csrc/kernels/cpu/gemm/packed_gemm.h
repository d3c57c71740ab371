// Float32 GEMM on AVX-512 tiles of up to 12 x 32 (24 zmm accumulators), B packed into
// 32-column panels. Two uses:
// - against a matrix packed once and reused: an RNN multiplies the same hidden weight at
//   every time step, and OpenBLAS re-packs it on each call (its small-matrix path skips
//   packing but ran at ~45 GMAC/s on the 32x1024x256 LSTM step here);
// - sgemm512, a general GEMM that blas_gemm takes for float32 where it beats OpenBLAS's
//   SkylakeX kernels (67-75 GMAC/s on the MLP's shapes; the tiles run at 78-81 of the
//   core's 86 peak, packing included).
#pragma once
#include <cstdint>

#include "kernels/packed_weight.h"

namespace ember {

// Whether this CPU has the vector kernel for packed_gemm (AVX-512); callers keep BLAS
// otherwise.
bool packed_gemm_available();

// Packs B[k][n] = src[k * ld + n] (src[n * ld + k] when transposed) into dst, a buffer of
// PackedB::floats(K, N) floats, 64-byte aligned. Only after packed_gemm_available().
void pack_b(const float* src, int64_t K, int64_t N, int64_t ld, bool transposed, float* dst);

// One panel, serially: C[M, n] (rows ldc apart) = A[M,K] (rows lda apart) @ panel, where the
// panel is K rows of PackedB::kWidth floats (64-byte aligned) and n <= kWidth columns are kept;
// plus C's old value when accumulate. For callers that build panels themselves.
void packed_gemm_panel(int64_t M, int64_t K, const float* A, int64_t lda, const float* panel, float* C, int64_t ldc,
                       bool accumulate, int64_t n);

// panel[k][j] = Bt[j * ldb + k] for k < kc and j < n, zero for n <= j < kWidth: B given transposed
// (its rows are the panel's columns), packed by 16 x 16 register transposes. panel: 64-byte aligned.
void pack_panel_transposed(const float* Bt, int64_t ldb, int64_t kc, int64_t n, float* panel);

// Rows for the next tile when `left` rows remain and tiles hold at most `most`: a short
// remainder is split with the tile before it (16 = 8 + 8, not 12 + 4), since a tile of a few
// rows loads B as often as a full one.
inline int64_t tile_rows(int64_t left, int64_t most) {
  return left > most && left < most + most / 2 + 2 ? (left + 1) / 2 : (left < most ? left : most);
}

// C[M,N] (rows ldc apart) = A[M,K] (rows lda apart) @ B, plus C's old value when accumulate.
void packed_gemm(int64_t M, const float* A, int64_t lda, const PackedB& B, float* C, int64_t ldc, bool accumulate);

// Whether sgemm512 is the faster one for this product (an AVX-512 CPU, and a shape where
// packing pays: measured against OpenBLAS, see sgemm512_wanted in packed_gemm.cpp).
bool sgemm512_wanted(bool ta, bool tb, int64_t M, int64_t N, int64_t K);

// C = alpha * op(A) @ op(B) + beta * C on one thread, row-major as blas_gemm (C is not read
// when beta is 0). Only after packed_gemm_available().
void sgemm512(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
              const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

}  // namespace ember
