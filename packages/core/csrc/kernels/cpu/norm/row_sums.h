// Blocked sums shared by the norm kernels (kernels/cpu/norm).
#pragma once
#include <algorithm>
#include <cstdint>

#include "kernels/cpu/vec_math.h"

namespace ember::norms {

// sum of f(j) for j < n: float lanes inside blocks of kSumBlock, blocks added in double, so
// the loop vectorises and long reductions keep double-like accuracy.
constexpr int64_t kSumBlock = 256;
template <class A, class F>
EMBER_VEC_INLINE double blocked_sum(int64_t n, const F& f) {
  double s = 0;
  for (int64_t b = 0; b < n; b += kSumBlock) {
    const int64_t e = std::min(n, b + kSumBlock);
    A bs = 0;
#pragma omp simd reduction(+ : bs)
    for (int64_t j = b; j < e; ++j) bs += f(j);
    s += static_cast<double>(bs);
  }
  return s;
}

}  // namespace ember::norms
