// max_pool2d with 2x2 windows, stride 2, no padding, float32 (the CNN case): 16 outputs per step
// from two input rows, even and odd columns separated by one permute each. The scalar kernel's
// branch per element (`v > max || isnan(v)`) cost ~12% of a small CNN's training step.
#include "kernels/cpu/pool/max_pool2x2.h"

#include <cmath>

#include "core/cpu_capability.h"
#include "core/parallel.h"
#ifdef EMBER_HAVE_TARGETS
#include <immintrin.h>
#endif

namespace ember::pool {

namespace {

// PyTorch's rule in window order: a greater value or a NaN takes over (so the first maximum
// and the last NaN win).
inline void take(float v, int64_t at, float& m, int64_t& best) {
  if (v > m || std::isnan(v)) m = v, best = at;
}

void scalar_cols(const float* x, int64_t W, int64_t oh, int64_t ow0, int64_t OW, float* y, int64_t* ind) {
  for (int64_t ow = ow0; ow < OW; ++ow) {
    const int64_t a = 2 * oh * W + 2 * ow;
    float m = x[a];
    int64_t best = a;
    take(x[a + 1], a + 1, m, best);
    take(x[a + W], a + W, m, best);
    take(x[a + W + 1], a + W + 1, m, best);
    y[oh * OW + ow] = m;
    ind[oh * OW + ow] = best;
  }
}

#ifdef EMBER_HAVE_TARGETS
EMBER_TARGET_AVX512 void plane_avx512(const float* x, int64_t W, int64_t OH, int64_t OW, float* y, int64_t* ind) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (int64_t oh = 0; oh < OH; ++oh) {
    const float* r0 = x + 2 * oh * W;
    const float* r1 = r0 + W;
    int64_t ow = 0;
    for (; ow + 16 <= OW; ow += 16) {
      const __m512 a0 = _mm512_loadu_ps(r0 + 2 * ow), a1 = _mm512_loadu_ps(r0 + 2 * ow + 16);
      const __m512 b0 = _mm512_loadu_ps(r1 + 2 * ow), b1 = _mm512_loadu_ps(r1 + 2 * ow + 16);
      const __m512 v[4] = {_mm512_permutex2var_ps(a0, even, a1), _mm512_permutex2var_ps(a0, odd, a1),
                           _mm512_permutex2var_ps(b0, even, b1), _mm512_permutex2var_ps(b0, odd, b1)};
      const __m512i base = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(2 * oh * W + 2 * ow)), even);
      const int off[4] = {0, 1, static_cast<int>(W), static_cast<int>(W + 1)};
      __m512 m = v[0];
      __m512i best = base;
      for (int t = 1; t < 4; ++t) {
        const __mmask16 k = _mm512_cmp_ps_mask(v[t], m, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v[t], v[t], _CMP_UNORD_Q);
        m = _mm512_mask_blend_ps(k, m, v[t]);
        best = _mm512_mask_blend_epi32(k, best, _mm512_add_epi32(base, _mm512_set1_epi32(off[t])));
      }
      _mm512_storeu_ps(y + oh * OW + ow, m);
      _mm512_storeu_si512(ind + oh * OW + ow, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(best)));
      _mm512_storeu_si512(ind + oh * OW + ow + 8, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(best, 1)));
    }
    scalar_cols(x, W, oh, ow, OW, y, ind);
  }
}
#endif

}  // namespace

bool max2x2_applies(int64_t H, int64_t W, int64_t OH, int64_t OW) {
  // Every window whole (floor sizes) and plane indices within int32 for the vector lanes.
  return cpu_has_avx512() && 2 * OH <= H && 2 * OW <= W && H * W < (int64_t(1) << 31);
}

void max2x2_planes(const float* x, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW, float* y,
                   int64_t* ind) {
  GilRelease nogil;
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(H * W, 1)), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
#ifdef EMBER_HAVE_TARGETS
      plane_avx512(x + b * H * W, W, OH, OW, y + b * OH * OW, ind + b * OH * OW);
#else
      for (int64_t oh = 0; oh < OH; ++oh) scalar_cols(x + b * H * W, W, oh, 0, OW, y + b * OH * OW, ind + b * OH * OW);
#endif
    }
  });
}

}  // namespace ember::pool
