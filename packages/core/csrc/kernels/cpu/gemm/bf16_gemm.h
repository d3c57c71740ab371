// bfloat16 GEMM with float32 accumulation on the CPU's bfloat16 instructions: AMX-BF16 tiles
// where the CPU and OS allow them, else AVX512-BF16 (VDPBF16PS). Callers without either
// (bf16_gemm_available() false: older CPUs, or EMBER_CPU_CAPABILITY=avx512/avx2/default)
// widen to float32 and use the float32 GEMM.
#pragma once
#include <cstdint>

namespace ember {

bool bf16_gemm_available();

// C[M,N] (float32, rows ldc apart) = alpha * op(A) @ op(B) + beta * C, row-major as blas_gemm;
// A and B hold bfloat16 bits (op(A)[m][k] is A[m * lda + k], or A[k * lda + m] when ta).
// Products are exact in float32 and summed in float32; C is not read when beta is 0, and A
// and B are not read when alpha is 0 or K is 0. Threads as the float32 GEMM; releases the GIL.
// Only after bf16_gemm_available().
void bf16_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A, int64_t lda,
               const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc);

}  // namespace ember
