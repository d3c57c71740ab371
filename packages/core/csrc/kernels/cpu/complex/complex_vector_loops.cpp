// The vector forms of complex mul and |z| (complex_vector_loops.h). The sums that follow a product
// go through instructions the compiler cannot fuse into an FMA (addsub, add with explicit
// rounding), so every ISA gives c10::complex's values bit for bit: two rounded products, one add.
#include "kernels/cpu/complex/complex_vector_loops.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/cpu_capability.h"
#ifdef EMBER_HAVE_TARGETS
#include <immintrin.h>
#endif

namespace ember {

namespace {

// The portable loops (also the vector forms' tails): noinline, so a target function does not
// absorb them and contract their products into FMAs.
template <class R>
__attribute__((noinline)) void mul_scalar(const R* a, const R* b, R* o, int64_t n, bool b_scalar) {
  for (int64_t k = 0; k < n; ++k) {
    const R* y = b_scalar ? b : b + 2 * k;
    const R ar = a[2 * k], ai = a[2 * k + 1], br = y[0], bi = y[1];
    const R re = ar * br - ai * bi, im = ar * bi + ai * br;
    o[2 * k] = re;
    o[2 * k + 1] = im;
  }
}

// |z| where re^2 + im^2 leaves R's safe range (overflow, deep underflow, inf / NaN): as hypot
// (PyTorch's abs is Sleef's hypot), complex64 through double, where its squares are exact.
template <class R>
__attribute__((noinline)) R abs_careful(R re, R im) {
  if constexpr (sizeof(R) == 4) {
    if (std::isinf(re) || std::isinf(im)) return std::numeric_limits<R>::infinity();
    return static_cast<R>(std::sqrt(double(re) * re + double(im) * im));
  } else {
    return std::hypot(re, im);
  }
}
// re^2 + im^2 at or above this (and finite) gives sqrt's answer to an ulp: no square was lost.
template <class R>
constexpr R kSafeSquare = sizeof(R) == 4 ? R(0x1p-100) : R(0x1p-900);

template <class R>
__attribute__((noinline)) void abs_scalar(const R* a, R* o, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    const R re = a[2 * k], im = a[2 * k + 1], s = re * re + im * im;
    o[k] = s >= kSafeSquare<R> && s < std::numeric_limits<R>::infinity() ? std::sqrt(s) : abs_careful(re, im);
  }
}

// Complex values before o reaches `align` bytes (streaming stores need aligned addresses);
// n when it never will (o not on an element boundary).
inline int64_t head_for(const void* o, int64_t elem, int64_t align, int64_t n) {
  const auto p = reinterpret_cast<uintptr_t>(o);
  if (p % static_cast<uintptr_t>(elem) != 0) return n;
  const int64_t h = static_cast<int64_t>((align - p % align) % align) / elem;
  return h < n ? h : n;
}

#ifdef EMBER_HAVE_TARGETS

// A complex64 value's 8 bytes as one double, to broadcast the pair.
inline double pair_bits(const float* b) {
  double d;
  std::memcpy(&d, b, sizeof d);
  return d;
}

// ---- AVX2 ----
EMBER_TARGET_AVX2 inline __m256 mul8f(__m256 a, __m256 b) {
  const __m256 br = _mm256_moveldup_ps(b), bi = _mm256_movehdup_ps(b);
  const __m256 asw = _mm256_permute_ps(a, 0xB1);  // (im, re) pairs
  return _mm256_addsub_ps(_mm256_mul_ps(a, br), _mm256_mul_ps(asw, bi));
}
EMBER_TARGET_AVX2 inline __m256d mul4d(__m256d a, __m256d b) {
  const __m256d br = _mm256_movedup_pd(b), bi = _mm256_permute_pd(b, 0xF);
  const __m256d asw = _mm256_permute_pd(a, 0x5);
  return _mm256_addsub_pd(_mm256_mul_pd(a, br), _mm256_mul_pd(asw, bi));
}

template <class R>
EMBER_TARGET_AVX2 void mul_avx2(const R* a, const R* b, R* o, int64_t n, bool b_scalar, bool stream) {
  constexpr int64_t kStep = 32 / (2 * sizeof(R));  // complex values per vector
  int64_t k = stream ? head_for(o, 2 * sizeof(R), 32, n) : 0;
  mul_scalar(a, b, o, k, b_scalar);
  const int64_t end = k + (n - k) / kStep * kStep;
  if constexpr (sizeof(R) == 4) {
    const __m256 bs = b_scalar ? _mm256_castpd_ps(_mm256_set1_pd(pair_bits(b))) : _mm256_setzero_ps();
    for (; k < end; k += kStep) {
      const __m256 r = mul8f(_mm256_loadu_ps(a + 2 * k), b_scalar ? bs : _mm256_loadu_ps(b + 2 * k));
      if (stream) _mm256_stream_ps(o + 2 * k, r);
      else _mm256_storeu_ps(o + 2 * k, r);
    }
  } else {
    const __m256d bs = b_scalar ? _mm256_setr_pd(b[0], b[1], b[0], b[1]) : _mm256_setzero_pd();
    for (; k < end; k += kStep) {
      const __m256d r = mul4d(_mm256_loadu_pd(a + 2 * k), b_scalar ? bs : _mm256_loadu_pd(b + 2 * k));
      if (stream) _mm256_stream_pd(o + 2 * k, r);
      else _mm256_storeu_pd(o + 2 * k, r);
    }
  }
  if (stream) _mm_sfence();
  mul_scalar(a + 2 * k, b_scalar ? b : b + 2 * k, o + 2 * k, n - k, b_scalar);
}

template <class R>
EMBER_TARGET_AVX2 void abs_avx2(const R* a, R* o, int64_t n, bool stream) {
  constexpr int64_t kStep = 32 / sizeof(R);  // outputs per vector (two input vectors)
  int64_t k = stream ? head_for(o, sizeof(R), 32, n) : 0;
  abs_scalar(a, o, k);
  const int64_t end = k + (n - k) / kStep * kStep;
  alignas(32) R slow[kStep];
  for (; k < end; k += kStep) {
    if constexpr (sizeof(R) == 4) {
      const __m256 v0 = _mm256_loadu_ps(a + 2 * k), v1 = _mm256_loadu_ps(a + 2 * k + 8);
      // hadd pairs within 128-bit lanes: values 0 1 4 5 | 2 3 6 7, put back in order
      const __m256 h = _mm256_hadd_ps(_mm256_mul_ps(v0, v0), _mm256_mul_ps(v1, v1));
      const __m256 sq = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(h), 0xD8));
      const __m256 ok =
          _mm256_and_ps(_mm256_cmp_ps(sq, _mm256_set1_ps(kSafeSquare<R>), _CMP_GE_OQ),
                        _mm256_cmp_ps(sq, _mm256_set1_ps(std::numeric_limits<R>::infinity()), _CMP_LT_OQ));
      __m256 r = _mm256_sqrt_ps(sq);
      if (_mm256_movemask_ps(ok) != 0xFF) {  // rare: some |z| needs the careful form
        abs_scalar(a + 2 * k, slow, kStep);
        r = _mm256_load_ps(slow);
      }
      if (stream) _mm256_stream_ps(o + k, r);
      else _mm256_storeu_ps(o + k, r);
    } else {
      const __m256d v0 = _mm256_loadu_pd(a + 2 * k), v1 = _mm256_loadu_pd(a + 2 * k + 4);
      const __m256d h = _mm256_hadd_pd(_mm256_mul_pd(v0, v0), _mm256_mul_pd(v1, v1));  // 0 2 1 3
      const __m256d sq = _mm256_permute4x64_pd(h, 0xD8);
      const __m256d ok =
          _mm256_and_pd(_mm256_cmp_pd(sq, _mm256_set1_pd(kSafeSquare<R>), _CMP_GE_OQ),
                        _mm256_cmp_pd(sq, _mm256_set1_pd(std::numeric_limits<R>::infinity()), _CMP_LT_OQ));
      __m256d r = _mm256_sqrt_pd(sq);
      if (_mm256_movemask_pd(ok) != 0xF) {
        abs_scalar(a + 2 * k, slow, kStep);
        r = _mm256_load_pd(slow);
      }
      if (stream) _mm256_stream_pd(o + k, r);
      else _mm256_storeu_pd(o + k, r);
    }
  }
  if (stream) _mm_sfence();
  abs_scalar(a + 2 * k, o + k, n - k);
}

// ---- AVX-512 ----
constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

EMBER_TARGET_AVX512 inline __m512 mul16f(__m512 a, __m512 b) {
  const __m512 br = _mm512_moveldup_ps(b), bi = _mm512_movehdup_ps(b);
  const __m512 asw = _mm512_permute_ps(a, 0xB1);
  // (re - im*bi, im + re*bi): the second product negated in the real lanes, then one rounded add
  const __m512 neg_even = _mm512_castsi512_ps(_mm512_set1_epi64(0x0000000080000000LL));
  const __m512 t = _mm512_xor_ps(_mm512_mul_ps(asw, bi), neg_even);
  return _mm512_add_round_ps(_mm512_mul_ps(a, br), t, kRound);
}
EMBER_TARGET_AVX512 inline __m512d mul8d(__m512d a, __m512d b) {
  const __m512d br = _mm512_movedup_pd(b), bi = _mm512_permute_pd(b, 0xFF);
  const __m512d asw = _mm512_permute_pd(a, 0x55);
  const __m512d neg_even =
      _mm512_castsi512_pd(_mm512_set_epi64(0, INT64_MIN, 0, INT64_MIN, 0, INT64_MIN, 0, INT64_MIN));
  const __m512d t = _mm512_xor_pd(_mm512_mul_pd(asw, bi), neg_even);
  return _mm512_add_round_pd(_mm512_mul_pd(a, br), t, kRound);
}

template <class R>
EMBER_TARGET_AVX512 void mul_avx512(const R* a, const R* b, R* o, int64_t n, bool b_scalar, bool stream) {
  constexpr int64_t kStep = 64 / (2 * sizeof(R));
  int64_t k = stream ? head_for(o, 2 * sizeof(R), 64, n) : 0;
  mul_scalar(a, b, o, k, b_scalar);
  const int64_t end = k + (n - k) / kStep * kStep;
  if constexpr (sizeof(R) == 4) {
    const __m512 bs = b_scalar ? _mm512_castpd_ps(_mm512_set1_pd(pair_bits(b))) : _mm512_setzero_ps();
    for (; k < end; k += kStep) {
      const __m512 r = mul16f(_mm512_loadu_ps(a + 2 * k), b_scalar ? bs : _mm512_loadu_ps(b + 2 * k));
      if (stream) _mm512_stream_ps(o + 2 * k, r);
      else _mm512_storeu_ps(o + 2 * k, r);
    }
  } else {
    const __m512d bs = b_scalar ? _mm512_broadcast_f64x2(_mm_loadu_pd(b)) : _mm512_setzero_pd();
    for (; k < end; k += kStep) {
      const __m512d r = mul8d(_mm512_loadu_pd(a + 2 * k), b_scalar ? bs : _mm512_loadu_pd(b + 2 * k));
      if (stream) _mm512_stream_pd(o + 2 * k, r);
      else _mm512_storeu_pd(o + 2 * k, r);
    }
  }
  if (stream) _mm_sfence();
  mul_scalar(a + 2 * k, b_scalar ? b : b + 2 * k, o + 2 * k, n - k, b_scalar);
}

template <class R>
EMBER_TARGET_AVX512 void abs_avx512(const R* a, R* o, int64_t n, bool stream) {
  constexpr int64_t kStep = 64 / sizeof(R);
  int64_t k = stream ? head_for(o, sizeof(R), 64, n) : 0;
  abs_scalar(a, o, k);
  const int64_t end = k + (n - k) / kStep * kStep;
  alignas(64) R slow[kStep];
  for (; k < end; k += kStep) {
    if constexpr (sizeof(R) == 4) {
      const __m512 v0 = _mm512_loadu_ps(a + 2 * k), v1 = _mm512_loadu_ps(a + 2 * k + 16);
      const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
      const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
      const __m512 re = _mm512_permutex2var_ps(v0, even, v1), im = _mm512_permutex2var_ps(v0, odd, v1);
      const __m512 sq = _mm512_add_round_ps(_mm512_mul_ps(re, re), _mm512_mul_ps(im, im), kRound);
      const __mmask16 ok = _mm512_cmp_ps_mask(sq, _mm512_set1_ps(kSafeSquare<R>), _CMP_GE_OQ) &
                           _mm512_cmp_ps_mask(sq, _mm512_set1_ps(std::numeric_limits<R>::infinity()), _CMP_LT_OQ);
      __m512 r = _mm512_sqrt_ps(sq);
      if (ok != 0xFFFF) {  // rare: some |z| needs the careful form
        abs_scalar(a + 2 * k, slow, kStep);
        r = _mm512_load_ps(slow);
      }
      if (stream) _mm512_stream_ps(o + k, r);
      else _mm512_storeu_ps(o + k, r);
    } else {
      const __m512d v0 = _mm512_loadu_pd(a + 2 * k), v1 = _mm512_loadu_pd(a + 2 * k + 8);
      const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
      const __m512i odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
      const __m512d re = _mm512_permutex2var_pd(v0, even, v1), im = _mm512_permutex2var_pd(v0, odd, v1);
      const __m512d sq = _mm512_add_round_pd(_mm512_mul_pd(re, re), _mm512_mul_pd(im, im), kRound);
      const __mmask8 ok = _mm512_cmp_pd_mask(sq, _mm512_set1_pd(kSafeSquare<R>), _CMP_GE_OQ) &
                          _mm512_cmp_pd_mask(sq, _mm512_set1_pd(std::numeric_limits<R>::infinity()), _CMP_LT_OQ);
      __m512d r = _mm512_sqrt_pd(sq);
      if (ok != 0xFF) {
        abs_scalar(a + 2 * k, slow, kStep);
        r = _mm512_load_pd(slow);
      }
      if (stream) _mm512_stream_pd(o + k, r);
      else _mm512_storeu_pd(o + k, r);
    }
  }
  if (stream) _mm_sfence();
  abs_scalar(a + 2 * k, o + k, n - k);
}

#endif  // EMBER_HAVE_TARGETS

}  // namespace

// AVX-512 only over inputs on 64-byte boundaries: otherwise every 64-byte load spans two cache
// lines, and the AVX2 loop (half of its loads split) was faster (4M complex64 from 16-byte
// aligned NumPy buffers: 2.0 ms with AVX-512, 1.5 ms with AVX2, 1.45 ms AVX-512 when aligned).
inline bool aligned64(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 63) == 0; }

template <class R>
void complex_mul_run(const R* a, const R* b, R* o, int64_t n, bool b_scalar, bool stream) {
#ifdef EMBER_HAVE_TARGETS
  if (cpu_has_avx512() && aligned64(a) && (b_scalar || aligned64(b))) return mul_avx512(a, b, o, n, b_scalar, stream);
  if (cpu_has_avx2()) return mul_avx2(a, b, o, n, b_scalar, stream);
#endif
  (void)stream;
  mul_scalar(a, b, o, n, b_scalar);
}

template <class R>
void complex_abs_run(const R* a, R* o, int64_t n, bool stream) {
#ifdef EMBER_HAVE_TARGETS
  if (cpu_has_avx512() && aligned64(a)) return abs_avx512(a, o, n, stream);
  if (cpu_has_avx2()) return abs_avx2(a, o, n, stream);
#endif
  (void)stream;
  abs_scalar(a, o, n);
}

template void complex_mul_run<float>(const float*, const float*, float*, int64_t, bool, bool);
template void complex_mul_run<double>(const double*, const double*, double*, int64_t, bool, bool);
template void complex_abs_run<float>(const float*, float*, int64_t, bool);
template void complex_abs_run<double>(const double*, double*, int64_t, bool);

}  // namespace ember
