// The vector form of arg(z) (complex_angle.h). atan2 in double lanes: |y| and |x| give
// a = min / max in [0, 1], reduced to |t| <= tan(pi/8) through atan(a) = pi/4 + atan((a - 1) / (a + 1)),
// whose Taylor series then converges fast (t^2 <= 0.172); the quadrant comes back from the
// order of |x|, |y| and the signs. complex64 is widened to double and rounded once at the end.
#include "kernels/cpu/complex/complex_angle.h"

#include <cmath>
#include <complex>

#include "core/cpu_capability.h"
#ifdef EMBER_HAVE_TARGETS
#include <immintrin.h>
#endif

namespace ember {

namespace {

template <class R>
__attribute__((noinline)) void angle_scalar(const R* a, R* o, int64_t n) {
  for (int64_t k = 0; k < n; ++k) o[k] = std::atan2(a[2 * k + 1], a[2 * k]);
}

#ifdef EMBER_HAVE_TARGETS

constexpr double kPi = 3.14159265358979323846, kTanPi8 = 0.41421356237309504880;

// atan2(y, x) in four double lanes; `terms` of atan's Taylor series (t - t^3/3 + ...).
template <int terms>
EMBER_TARGET_AVX2 inline __m256d atan2_4d(__m256d y, __m256d x) {
  const __m256d sign = _mm256_set1_pd(-0.0), one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
  const __m256d ax = _mm256_andnot_pd(sign, x), ay = _mm256_andnot_pd(sign, y);
  const __m256d mx = _mm256_max_pd(ax, ay), mn = _mm256_min_pd(ax, ay);
  __m256d a = _mm256_div_pd(mn, mx);
  a = _mm256_blendv_pd(a, zero, _mm256_cmp_pd(mx, zero, _CMP_EQ_OQ));                     // both zero
  a = _mm256_blendv_pd(a, one, _mm256_cmp_pd(mn, _mm256_set1_pd(INFINITY), _CMP_EQ_OQ));  // both infinite
  const __m256d big = _mm256_cmp_pd(a, _mm256_set1_pd(kTanPi8), _CMP_GT_OQ);
  const __m256d t = _mm256_blendv_pd(a, _mm256_div_pd(_mm256_sub_pd(a, one), _mm256_add_pd(a, one)), big);
  const __m256d z = _mm256_mul_pd(t, t);
  // p = 1 - z/3 + z^2/5 - ... by Horner from the last term
  __m256d p = _mm256_set1_pd((terms % 2 ? 1.0 : -1.0) / (2 * terms - 1));
  for (int k = terms - 2; k >= 0; --k) p = _mm256_fmadd_pd(p, z, _mm256_set1_pd((k % 2 ? -1.0 : 1.0) / (2 * k + 1)));
  __m256d r = _mm256_fmadd_pd(t, p, _mm256_and_pd(big, _mm256_set1_pd(kPi / 4)));
  r = _mm256_blendv_pd(r, _mm256_sub_pd(_mm256_set1_pd(kPi / 2), r), _mm256_cmp_pd(ay, ax, _CMP_GT_OQ));
  r = _mm256_blendv_pd(r, _mm256_sub_pd(_mm256_set1_pd(kPi), r), x);                   // x's sign bit (-0 included)
  r = _mm256_or_pd(r, _mm256_and_pd(sign, y));                                         // r >= 0 here: y's sign
  return _mm256_blendv_pd(r, _mm256_add_pd(x, y), _mm256_cmp_pd(x, y, _CMP_UNORD_Q));  // NaN in
}

EMBER_TARGET_AVX2 void angle_avx2(const float* a, float* o, int64_t n) {
  const __m256i deinterleave = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  int64_t k = 0;
  for (; k + 4 <= n; k += 4) {
    const __m256 v = _mm256_permutevar8x32_ps(_mm256_loadu_ps(a + 2 * k), deinterleave);  // re x4, im x4
    const __m256d x = _mm256_cvtps_pd(_mm256_castps256_ps128(v)), y = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
    _mm_storeu_ps(o + k, _mm256_cvtpd_ps(atan2_4d<10>(y, x)));  // 1e-10 before rounding to float
  }
  angle_scalar(a + 2 * k, o + k, n - k);
}

EMBER_TARGET_AVX2 void angle_avx2(const double* a, double* o, int64_t n) {
  int64_t k = 0;
  for (; k + 4 <= n; k += 4) {
    const __m256d v0 = _mm256_loadu_pd(a + 2 * k), v1 = _mm256_loadu_pd(a + 2 * k + 4);
    const __m256d x = _mm256_unpacklo_pd(v0, v1), y = _mm256_unpackhi_pd(v0, v1);  // lanes 0 2 1 3
    _mm256_storeu_pd(o + k, _mm256_permute4x64_pd(atan2_4d<20>(y, x), 0xD8));
  }
  angle_scalar(a + 2 * k, o + k, n - k);
}

#endif

}  // namespace

template <class R>
void complex_angle_run(const R* a, R* o, int64_t n) {
#ifdef EMBER_HAVE_TARGETS
  if (cpu_has_avx2()) return angle_avx2(a, o, n);
#endif
  angle_scalar(a, o, n);
}

template void complex_angle_run<float>(const float*, float*, int64_t);
template void complex_angle_run<double>(const double*, double*, int64_t);

}  // namespace ember
