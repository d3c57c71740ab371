#include "kernels/cpu/shape/transpose_tile.h"

#include <cstring>

#include "core/cpu_capability.h"
#ifdef EMBER_HAVE_TARGETS
#include <immintrin.h>

#include "kernels/cpu/gemm/transpose16.h"
#endif

namespace ember::shapes {
namespace {

// The elements of rows [r0, rows) x cols [0, c0) and all rows x cols [c0, cols): what the vector
// blocks (a multiple of their size in both dims) left over; dst row by row.
template <class T>
void scalar_rest(const char* s, int64_t ls, char* d, int64_t ld, int64_t rows, int64_t cols, int64_t r0, int64_t c0) {
  constexpr int64_t es = sizeof(T);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = j < c0 ? r0 : 0; i < rows; ++i) std::memcpy(d + j * ld + i * es, s + i * ls + j * es, es);
}

#ifdef EMBER_HAVE_TARGETS
EMBER_TARGET_AVX512 void floats16(const char* s, int64_t ls, char* d, int64_t ld, int64_t rb, int64_t cb) {
  for (int64_t j = 0; j < cb; j += 16)
    for (int64_t i = 0; i < rb; i += 16) {
      __m512 r[16];
      for (int k = 0; k < 16; ++k) r[k] = _mm512_loadu_ps(s + (i + k) * ls + j * 4);
      transpose16(r);
      for (int k = 0; k < 16; ++k) _mm512_storeu_ps(d + (j + k) * ld + i * 4, r[k]);
    }
}

EMBER_TARGET_AVX2 void floats8(const char* s, int64_t ls, char* d, int64_t ld, int64_t rb, int64_t cb) {
  for (int64_t j = 0; j < cb; j += 8)
    for (int64_t i = 0; i < rb; i += 8) {
      __m256 r[8], t[8], u[8];
      for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(s + (i + k) * ls + j * 4));
      for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
      }
      for (int k = 0; k < 8; k += 4) {
        u[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
        u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xee);
        u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
        u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xee);
      }
      for (int k = 0; k < 4; ++k) {
        _mm256_storeu_ps(reinterpret_cast<float*>(d + (j + k) * ld + i * 4),
                         _mm256_permute2f128_ps(u[k], u[k + 4], 0x20));
        _mm256_storeu_ps(reinterpret_cast<float*>(d + (j + k + 4) * ld + i * 4),
                         _mm256_permute2f128_ps(u[k], u[k + 4], 0x31));
      }
    }
}

EMBER_TARGET_AVX2 void doubles4(const char* s, int64_t ls, char* d, int64_t ld, int64_t rb, int64_t cb) {
  for (int64_t j = 0; j < cb; j += 4)
    for (int64_t i = 0; i < rb; i += 4) {
      __m256d r[4];
      for (int k = 0; k < 4; ++k) r[k] = _mm256_loadu_pd(reinterpret_cast<const double*>(s + (i + k) * ls + j * 8));
      const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
      const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
      double* o = reinterpret_cast<double*>(d + j * ld + i * 8);
      _mm256_storeu_pd(o, _mm256_permute2f128_pd(t0, t2, 0x20));
      _mm256_storeu_pd(reinterpret_cast<double*>(d + (j + 1) * ld + i * 8), _mm256_permute2f128_pd(t1, t3, 0x20));
      _mm256_storeu_pd(reinterpret_cast<double*>(d + (j + 2) * ld + i * 8), _mm256_permute2f128_pd(t0, t2, 0x31));
      _mm256_storeu_pd(reinterpret_cast<double*>(d + (j + 3) * ld + i * 8), _mm256_permute2f128_pd(t1, t3, 0x31));
    }
}

// Baseline x86-64 has SSE2: 4 x 4 floats.
void floats4(const char* s, int64_t ls, char* d, int64_t ld, int64_t rb, int64_t cb) {
  for (int64_t j = 0; j < cb; j += 4)
    for (int64_t i = 0; i < rb; i += 4) {
      __m128 r[4];
      for (int k = 0; k < 4; ++k) r[k] = _mm_loadu_ps(reinterpret_cast<const float*>(s + (i + k) * ls + j * 4));
      _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
      for (int k = 0; k < 4; ++k) _mm_storeu_ps(reinterpret_cast<float*>(d + (j + k) * ld + i * 4), r[k]);
    }
}

// 2 x 2 doubles (SSE2).
void doubles2(const char* s, int64_t ls, char* d, int64_t ld, int64_t rb, int64_t cb) {
  for (int64_t j = 0; j < cb; j += 2)
    for (int64_t i = 0; i < rb; i += 2) {
      const __m128d r0 = _mm_loadu_pd(reinterpret_cast<const double*>(s + i * ls + j * 8));
      const __m128d r1 = _mm_loadu_pd(reinterpret_cast<const double*>(s + (i + 1) * ls + j * 8));
      _mm_storeu_pd(reinterpret_cast<double*>(d + j * ld + i * 8), _mm_unpacklo_pd(r0, r1));
      _mm_storeu_pd(reinterpret_cast<double*>(d + (j + 1) * ld + i * 8), _mm_unpackhi_pd(r0, r1));
    }
}

// 8 x 8 of 16-bit (SSE2): pairs, then quads, then halves interleaved.
void halves8(const char* s, int64_t ls, char* d, int64_t ld, int64_t rb, int64_t cb) {
  for (int64_t j = 0; j < cb; j += 8)
    for (int64_t i = 0; i < rb; i += 8) {
      __m128i r[8], a[8], b[8];
      for (int k = 0; k < 8; ++k) r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + (i + k) * ls + j * 2));
      for (int k = 0; k < 8; k += 2) {
        a[k] = _mm_unpacklo_epi16(r[k], r[k + 1]);
        a[k + 1] = _mm_unpackhi_epi16(r[k], r[k + 1]);
      }
      for (int k = 0; k < 8; k += 4) {  // rows k..k+3: columns 0-1, 2-3, 4-5, 6-7
        b[k] = _mm_unpacklo_epi32(a[k], a[k + 2]);
        b[k + 1] = _mm_unpackhi_epi32(a[k], a[k + 2]);
        b[k + 2] = _mm_unpacklo_epi32(a[k + 1], a[k + 3]);
        b[k + 3] = _mm_unpackhi_epi32(a[k + 1], a[k + 3]);
      }
      for (int k = 0; k < 4; ++k) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + (j + 2 * k) * ld + i * 2), _mm_unpacklo_epi64(b[k], b[k + 4]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + (j + 2 * k + 1) * ld + i * 2),
                         _mm_unpackhi_epi64(b[k], b[k + 4]));
      }
    }
}

// 8 x 8 bytes (SSE2), rows loaded 8 bytes at a time.
void bytes8(const char* s, int64_t ls, char* d, int64_t ld, int64_t rb, int64_t cb) {
  for (int64_t j = 0; j < cb; j += 8)
    for (int64_t i = 0; i < rb; i += 8) {
      __m128i r[8], a[4], b[4];
      for (int k = 0; k < 8; ++k) r[k] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + (i + k) * ls + j));
      for (int k = 0; k < 4; ++k) a[k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
      b[0] = _mm_unpacklo_epi16(a[0], a[1]);  // rows 0-3, columns 0-3
      b[1] = _mm_unpackhi_epi16(a[0], a[1]);  // rows 0-3, columns 4-7
      b[2] = _mm_unpacklo_epi16(a[2], a[3]);
      b[3] = _mm_unpackhi_epi16(a[2], a[3]);
      for (int k = 0; k < 2; ++k) {
        const __m128i lo = _mm_unpacklo_epi32(b[k], b[k + 2]), hi = _mm_unpackhi_epi32(b[k], b[k + 2]);
        char* o = d + (j + 4 * k) * ld + i;
        _mm_storel_epi64(reinterpret_cast<__m128i*>(o), lo);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(o + ld), _mm_unpackhi_epi64(lo, lo));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(o + 2 * ld), hi);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(o + 3 * ld), _mm_unpackhi_epi64(hi, hi));
      }
    }
}
#endif

using BlockFn = void (*)(const char*, int64_t, char*, int64_t, int64_t, int64_t);

// The vector block routine for this element size on this CPU, and its block size (0: none).
int64_t pick(int64_t es, BlockFn* fn) {
#ifdef EMBER_HAVE_TARGETS
  if (es == 4) {
    if (cpu_has_avx512()) return *fn = floats16, 16;
    if (cpu_has_avx2()) return *fn = floats8, 8;
    return *fn = floats4, 4;
  }
  if (es == 8) return cpu_has_avx2() ? (*fn = doubles4, 4) : (*fn = doubles2, 2);
  if (es == 2) return *fn = halves8, 8;
  if (es == 1) return *fn = bytes8, 8;
#endif
  (void)es;
  *fn = nullptr;
  return 0;
}

}  // namespace

void transpose_tile(const char* src, int64_t src_stride, char* dst, int64_t dst_stride, int64_t rows, int64_t cols,
                    int64_t elem_size) {
  // The source rows are staged in a contiguous buffer first, and the blocks walk dst row by row,
  // so that each line of either side is touched once: with power-of-two strides the tile's rows
  // share a few cache sets, and a line left half-done was evicted before it was finished.
  alignas(64) char staged[16384];
  const int64_t row_bytes = cols * elem_size;
  if (rows * row_bytes <= static_cast<int64_t>(sizeof staged)) {
    for (int64_t i = 0; i < rows; ++i) std::memcpy(staged + i * row_bytes, src + i * src_stride, row_bytes);
    src = staged;
    src_stride = row_bytes;
  }
  BlockFn fn = nullptr;
  const int64_t b = pick(elem_size, &fn);
  const int64_t rb = b ? rows / b * b : 0, cb = b ? cols / b * b : 0;
  if (rb > 0 && cb > 0) fn(src, src_stride, dst, dst_stride, rb, cb);
  switch (elem_size) {
    case 1:
      return scalar_rest<uint8_t>(src, src_stride, dst, dst_stride, rows, cols, rb, cb);
    case 2:
      return scalar_rest<uint16_t>(src, src_stride, dst, dst_stride, rows, cols, rb, cb);
    case 4:
      return scalar_rest<uint32_t>(src, src_stride, dst, dst_stride, rows, cols, rb, cb);
    default:
      return scalar_rest<uint64_t>(src, src_stride, dst, dst_stride, rows, cols, rb, cb);
  }
}

}  // namespace ember::shapes
