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

// sum of f(j) for j < n in double, over four quarters at once: four independent add chains (one
// would wait on the adder's latency at every vector: group_norm's moments ran at half speed).
template <class F>
EMBER_VEC_INLINE double quarter_sum(int64_t n, const F& f) {
  const int64_t q = n / 4;
  double a = 0, b = 0, c = 0, d = 0;
#pragma omp simd reduction(+ : a, b, c, d)
  for (int64_t j = 0; j < q; ++j) {
    a += f(j);
    b += f(j + q);
    c += f(j + 2 * q);
    d += f(j + 3 * q);
  }
  for (int64_t j = 4 * q; j < n; ++j) a += f(j);
  return (a + b) + (c + d);
}

// blocked_sum's precision (float lanes over runs of 16 values each, added in double) with four
// add chains: blocks of 4 kSumBlock, their quarters summed at once.
template <class A, class F>
EMBER_VEC_INLINE double quarter_blocked_sum(int64_t n, const F& f) {
  constexpr int64_t B = 4 * kSumBlock;
  double s = 0;
  int64_t b = 0;
  for (; b + B <= n; b += B) {
    A u = 0, v = 0, w = 0, z = 0;
#pragma omp simd reduction(+ : u, v, w, z)
    for (int64_t j = b; j < b + kSumBlock; ++j) {
      u += f(j);
      v += f(j + kSumBlock);
      w += f(j + 2 * kSumBlock);
      z += f(j + 3 * kSumBlock);
    }
    s += (static_cast<double>(u) + static_cast<double>(v)) + (static_cast<double>(w) + static_cast<double>(z));
  }
  return s + blocked_sum<A>(n - b, [&f, b](int64_t j) EMBER_VEC_LAMBDA { return f(b + j); });
}

}  // namespace ember::norms
