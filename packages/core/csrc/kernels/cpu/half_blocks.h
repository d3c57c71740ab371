// float16 / bfloat16 pointwise loops in blocks: the operands widened to float 8 at a time (F16C,
// AVX2), the functor run over the float block under omp simd, the result narrowed 8 or 16 at a
// time. GCC vectorises neither F16C's scalar conversions nor a loop over the Half struct: element
// by element a float16 multiply ran 4x slower than this (1.4x PyTorch's time), a bfloat16 one
// 1.7x. Builds without AVX2 keep the plain loops (kHalfBlocks is false there).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../../core/half.h"
#include "../../core/scalar_type.h"

namespace ember::cpu {
namespace {  // internal linkage: compiled once per CPU capability

#if defined(__F16C__) && defined(__AVX2__) && !defined(__CUDACC__)
constexpr bool kHalfSimd = true;  // F16C and AVX2: the conversions below

inline void widen_half(const Half* x, float* f, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(f + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
  for (; i < n; ++i) f[i] = static_cast<float>(x[i]);
}

inline void narrow_half(const float* f, Half* x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(x + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(f + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) x[i] = Half(f[i]);
}

// bfloat16: the top half of a float; narrowing rounds to nearest even and quiets NaN, as
// float_to_bf16 (half.h) does per element.
inline void widen_half(const BFloat16* x, float* f, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
    _mm256_storeu_ps(f + i, _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)));
  }
  for (; i < n; ++i) f[i] = static_cast<float>(x[i]);
}

inline void narrow_half(const float* f, BFloat16* x, int64_t n) {
  int64_t i = 0;
  const __m256i one = _mm256_set1_epi32(1), bias = _mm256_set1_epi32(0x7fff), quiet = _mm256_set1_epi32(0x40);
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  for (; i + 16 <= n; i += 16) {
    __m256i r[2];
    for (int h = 0; h < 2; ++h) {
      const __m256i b = _mm256_castps_si256(_mm256_loadu_ps(f + i + 8 * h)), top = _mm256_srli_epi32(b, 16);
      const __m256i rounded =
          _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(b, bias), _mm256_and_si256(top, one)), 16);
      const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(b, abs_mask), inf);
      r[h] = _mm256_blendv_epi8(rounded, _mm256_or_si256(top, quiet), nan);
    }
    // packus works within 128-bit lanes: (r0 lo, r1 lo, r0 hi, r1 hi) back into order
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r[0], r[1]), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(x + i), packed);
  }
  for (; i < n; ++i) x[i] = BFloat16(f[i]);
}
#else
constexpr bool kHalfSimd = false;
inline void widen_half(const Half*, float*, int64_t) {}
inline void narrow_half(const float*, Half*, int64_t) {}
inline void widen_half(const BFloat16*, float*, int64_t) {}
inline void narrow_half(const float*, BFloat16*, int64_t) {}
#endif

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Whether a loop In -> Out whose functor returns R takes the blocks: a half type on one side, plain
// numbers on the other, and a float result where it is narrowed to a half type.
template <class Out, class In, class R>
inline constexpr bool kHalfBlocks =
    kHalfSimd && (is_half_v<In> || is_half_v<Out>) && (is_half_v<In> || std::is_arithmetic_v<In>) &&
    std::is_arithmetic_v<R> && (is_half_v<Out> ? std::is_same_v<R, float> : std::is_arithmetic_v<Out>);

constexpr int64_t kHalfBlock = 256;

// out[i] = f(x[0][i], ..., x[N-1][i]) for contiguous operands, or one element repeated where
// bcast[k] (a 0-d or expanded operand).
template <class Out, class In, size_t N, class F, size_t... K>
void half_blocks_(Out* out, const In* const* x, const bool* bcast, int64_t n, const F& f, std::index_sequence<K...>) {
  using M = opmath_t<In>;
  alignas(64) M buf[N][kHalfBlock];
  for (size_t k = 0; k < N; ++k)
    if (bcast[k]) std::fill_n(buf[k], kHalfBlock, static_cast<M>(*x[k]));
  alignas(64) float res[kHalfBlock];
  for (int64_t b = 0; b < n; b += kHalfBlock) {
    const int64_t m = std::min(kHalfBlock, n - b);
    for (size_t k = 0; k < N; ++k) {
      if (bcast[k]) continue;
      if constexpr (is_half_v<In>) {
        widen_half(x[k] + b, buf[k], m);
      } else {
        _Pragma("omp simd") for (int64_t j = 0; j < m; ++j) buf[k][j] = static_cast<M>(x[k][b + j]);
      }
    }
    if constexpr (is_half_v<Out>) {
      _Pragma("omp simd") for (int64_t j = 0; j < m; ++j) res[j] = f(buf[K][j]...);
      narrow_half(res, out + b, m);
    } else {
      _Pragma("omp simd") for (int64_t j = 0; j < m; ++j) out[b + j] = static_cast<Out>(f(buf[K][j]...));
    }
  }
}

template <class Out, class In, size_t N, class F>
void half_blocks(Out* out, const In* const (&x)[N], const bool (&bcast)[N], int64_t n, const F& f) {
  half_blocks_<Out, In, N>(out, x, bcast, n, f, std::make_index_sequence<N>{});
}

}  // namespace
}  // namespace ember::cpu
