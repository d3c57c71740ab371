// Integer GEMM (kernels/backend.h, GemmKernels::igemm): no BLAS has one, so a row-at-a-time loop.
#pragma once
#include <cstdint>

#include "core/scalar_type.h"

namespace ember {

// C[M,N] = alpha * A[M,K] @ B[K,N] + beta * C, all contiguous row-major of the integer type dt,
// in the type's wrapping arithmetic (aten's, without its signed-overflow undefined behaviour).
void int_gemm(ScalarType dt, int64_t M, int64_t N, int64_t K, double alpha, double beta, const void* A, const void* B,
              void* C);

}  // namespace ember
