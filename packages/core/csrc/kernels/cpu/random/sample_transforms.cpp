// The vectorised transforms of the samplers (ops/random/random.cpp draws the words; Note [RNG
// streams] there): uniform words to [from, to) and uniforms to normals by Box-Muller, each with
// an AVX2+FMA variant picked by cpu_has_avx2() (kernels/cpu/isa_variants.h, form 2).
#include "kernels/cpu/random/sample_transforms.h"

#include <cmath>

#include "core/cpu_capability.h"
#include "kernels/cpu/vec_math.h"
#include "kernels/random_units.h"

#ifdef EMBER_HAVE_TARGETS
#include <immintrin.h>
#endif

namespace ember::sampling {

namespace {
constexpr double kPi = 3.14159265358979323846;
}  // namespace

// x * (to - from) + from, fused as PyTorch's vectorised build computes it, and
// a value that rounds up to `to` becomes `from` (the range is half-open).
// Built twice, picked by CPU features: without hardware FMA the fused
// multiply-add is a libm call per element.
template <bool kFma>
EMBER_VEC_INLINE void uniform_f32_body(const uint32_t* __restrict w, float* __restrict out, int64_t n, float from,
                                       float to) {
  const float range = to - from;
  for (int64_t i = 0; i < n; ++i) {
    const float x = unit_float(w[i]);
    const float v = kFma ? __builtin_fmaf(x, range, from) : std::fma(x, range, from);
    out[i] = vec::detail::sel(v == to, from, v);
  }
}
#ifdef EMBER_HAVE_TARGETS
EMBER_TARGET_AVX2 void uniform_f32_avx2(const uint32_t* w, float* out, int64_t n, float from, float to) {
  uniform_f32_body<true>(w, out, n, from, to);
}
#endif
void uniform_f32(const uint32_t* w, float* out, int64_t n, float from, float to) {
#ifdef EMBER_HAVE_TARGETS
  if (cpu_has_avx2()) return uniform_f32_avx2(w, out, n, from, to);
#endif
  uniform_f32_body<false>(w, out, n, from, to);
}

template <bool kFma>
EMBER_VEC_INLINE void uniform_f64_body(const uint64_t* __restrict w, double* __restrict out, int64_t n, double from,
                                       double to) {
  const double range = to - from;
  for (int64_t i = 0; i < n; ++i) {
    const double x = unit_double(w[i]);
    const double v = kFma ? __builtin_fma(x, range, from) : std::fma(x, range, from);
    out[i] = v == to ? from : v;
  }
}
#ifdef EMBER_HAVE_TARGETS
EMBER_TARGET_AVX2 void uniform_f64_avx2(const uint64_t* w, double* out, int64_t n, double from, double to) {
  uniform_f64_body<true>(w, out, n, from, to);
}
#endif
void uniform_f64(const uint64_t* w, double* out, int64_t n, double from, double to) {
#ifdef EMBER_HAVE_TARGETS
  if (cpu_has_avx2()) return uniform_f64_avx2(w, out, n, from, to);
#endif
  uniform_f64_body<false>(w, out, n, from, to);
}

// PyTorch's normal_fill_16: Box-Muller over 8 pairs (u1 = 1 - d[j], u2 = d[j+8]).
// Doubles use libm as PyTorch does, so double results match it bit for bit.
void box_muller_f64(double* d, double mean, double std) {
  for (int j = 0; j < 8; ++j) {
    const double u1 = 1 - d[j];
    const double u2 = d[j + 8];
    const double radius = std::sqrt(-2 * std::log(u1));
    const double theta = 2.0 * kPi * u2;
    d[j] = std::fma(radius * std::cos(theta), std, mean);
    d[j + 8] = std::fma(radius * std::sin(theta), std, mean);
  }
}

// The same over many float blocks, 8 lanes at a time with ember's vectorised
// log/sin/cos (<= 1.5 ulp). PyTorch's vectorised builds use approximations of
// their own here, so float normals agree with PyTorch's to ~1e-6, not bitwise.
// Three passes, each a clean vector loop: sqrt sits alone in the middle one
// because a libm sqrt call (errno) would keep the others from vectorising.
EMBER_VEC_INLINE void box_muller_f32_prep(float* d, int64_t nblocks) {
  for (int64_t k = 0; k < nblocks; ++k) {
    float* b = d + 16 * k;
#pragma omp simd
    for (int j = 0; j < 8; ++j) {
      b[j] = -2.0f * vec::log(1.0f - b[j]);                                      // radius^2
      b[j + 8] = static_cast<float>(2.0 * kPi * static_cast<double>(b[j + 8]));  // theta
    }
  }
}
template <bool kFma>
EMBER_VEC_INLINE void box_muller_f32_finish(float* d, int64_t nblocks, float mean, float std) {
  for (int64_t k = 0; k < nblocks; ++k) {
    float* b = d + 16 * k;
#pragma omp simd
    for (int j = 0; j < 8; ++j) {
      const float radius = b[j], theta = b[j + 8];
      const float c = radius * vec::cos(theta), s = radius * vec::sin(theta);
      b[j] = kFma ? __builtin_fmaf(c, std, mean) : c * std + mean;
      b[j + 8] = kFma ? __builtin_fmaf(s, std, mean) : s * std + mean;
    }
  }
}
#ifdef EMBER_HAVE_TARGETS
EMBER_TARGET_AVX2 void box_muller_f32_avx2(float* d, int64_t nblocks, float mean, float std) {
  box_muller_f32_prep(d, nblocks);
  for (int64_t k = 0; k < nblocks; ++k) _mm256_storeu_ps(d + 16 * k, _mm256_sqrt_ps(_mm256_loadu_ps(d + 16 * k)));
  box_muller_f32_finish<true>(d, nblocks, mean, std);
}
#endif
void box_muller_f32_base(float* d, int64_t nblocks, float mean, float std) {
  box_muller_f32_prep(d, nblocks);
  for (int64_t k = 0; k < nblocks; ++k)
    for (int j = 0; j < 8; ++j) d[16 * k + j] = std::sqrt(d[16 * k + j]);
  box_muller_f32_finish<false>(d, nblocks, mean, std);
}
void box_muller_f32(float* d, int64_t nblocks, float mean, float std) {
#ifdef EMBER_HAVE_TARGETS
  if (cpu_has_avx2()) return box_muller_f32_avx2(d, nblocks, mean, std);
#endif
  box_muller_f32_base(d, nblocks, mean, std);
}

}  // namespace ember::sampling
