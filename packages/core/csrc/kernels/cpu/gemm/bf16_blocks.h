// The packed operands the bfloat16 GEMM's block kernels share (internal to kernels/cpu/gemm).
//
// A block of mc x kc of op(A): rows padded to a multiple of 32 and kc to kcp, a multiple of 32
// (an AMX tile's 16 rows x 32 bfloat16), row-major with rows a_stride(kcp) apart, zero filled. A block of kc x nc of
// op(B): panels of 32 columns, each kcp / 2 rows of k-pairs, a row being 32 columns x the pair (B[2p][j], B[2p+1][j])
// -- the layout both VDPBF16PS and the AMX B tile multiply.
#pragma once
#include <cstdint>

namespace ember::bf16gemm {

constexpr int64_t kPanel = 32;  // columns of a B panel
constexpr int64_t kStep = 32;   // k of one AMX tile (and the padding of kc)

inline int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// One cache line past kcp: rows a power of two apart (kcp 1024: 2 KB) would put a tile's 16 rows
// in two L1 sets.
inline int64_t a_stride(int64_t kcp) { return kcp + 32; }

// C[mc, nc] = alpha * Ap @ Bp + beta * C (C not read when beta is 0).
using BlockFn = void (*)(const uint16_t* Ap, const uint16_t* Bp, int64_t mc, int64_t nc, int64_t kcp, float* C,
                         int64_t ldc, float alpha, float beta);
void block_avx512_bf16(const uint16_t* Ap, const uint16_t* Bp, int64_t mc, int64_t nc, int64_t kcp, float* C,
                       int64_t ldc, float alpha, float beta);
void block_amx(const uint16_t* Ap, const uint16_t* Bp, int64_t mc, int64_t nc, int64_t kcp, float* C, int64_t ldc,
               float alpha, float beta);

// Rows r < rows, columns j < n of C get alpha * acc[r * 32 + j] + beta * C[r][j] (acc is a 64-byte
// aligned 32-float-wide buffer).
void merge(const float* acc, int64_t rows, int64_t n, float* C, int64_t ldc, float alpha, float beta);

// The packers. op(A) rows m0.. of its block: a_rows when A's rows run along k (not transposed),
// a_cols when its columns do. op(B): b_rows when B's rows run along n (not transposed), b_cols
// when its columns do (a linear layer's weight).
void pack_a_rows(const uint16_t* A, int64_t lda, int64_t mc, int64_t kc, int64_t kcp, uint16_t* Ap);
void pack_a_cols(const uint16_t* A, int64_t lda, int64_t mc, int64_t kc, int64_t kcp, uint16_t* Ap);
void pack_b_rows(const uint16_t* B, int64_t ldb, int64_t kc, int64_t nc, int64_t kcp, uint16_t* Bp);
void pack_b_cols(const uint16_t* B, int64_t ldb, int64_t kc, int64_t nc, int64_t kcp, uint16_t* Bp);

}  // namespace ember::bf16gemm
