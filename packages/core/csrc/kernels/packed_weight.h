// A float32 matrix B[K,N] re-laid as column panels for the packed GEMM (kernels/backend.h,
// GemmKernels::pack / packed_gemm): device-independent, so the backend table can name it. The
// op allocates the buffer (PackedB::floats(K, N) floats, 64-byte aligned: ember's allocator).
#pragma once
#include <algorithm>
#include <cstdint>

namespace ember {

struct PackedB {
  static constexpr int64_t kWidth = 32;  // two zmm vectors: a tile row is two FMAs per k

  const float* data;  // panels of K rows of kWidth floats each, zero padded
  int64_t K, N;

  // The buffer's size in floats for a K x N matrix (at least 1).
  static int64_t floats(int64_t K, int64_t N) { return std::max<int64_t>((N + kWidth - 1) / kWidth * K * kWidth, 1); }
  const float* panel(int64_t p) const { return data + p * K * kWidth; }
};

}  // namespace ember
