// The array maps of the `array:` forms in sigmoid_n.h and gelu_table.h: map16 on AVX-512 (float32),
// map_n the vectorised loop of a kernel body elsewhere.
#pragma once
#include <cstdint>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace ember::ops {
namespace {
#if defined(__AVX512F__)
// out[i] = f(a[i], ...) over whole vectors, then the tail under a mask (masked-off lanes are not
// read); the inputs are read before the store, so out may be one of them.
template <class F, class... In>
inline void map16(float* out, int64_t n, F f, const In*... in) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, f(_mm512_loadu_ps(in + i)...));
  if (i < n) {
    const __mmask16 m = __mmask16((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(out + i, m, f(_mm512_maskz_loadu_ps(m, in + i)...));
  }
}
#endif

// out[i] = f(a[i], ...), vectorised.
template <class T, class F, class... In>
inline void map_n(T* out, int64_t n, F f, const In*... in) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]...);
}
}  // namespace
}  // namespace ember::ops
