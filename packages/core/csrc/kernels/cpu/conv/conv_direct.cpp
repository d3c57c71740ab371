// Direct float32 convolution for unit column stride and rows of at least ~24 outputs (groups == 1,
// AVX-512): a tile is R output channels x 32 outputs of one output row, and its "B" rows are read
// straight from a zero-padded copy of the sample, one unaligned load pair per (channel, kernel
// offset). There is no im2col at all: the input rows a tile reads (C x kernel rows x padded width)
// stay in L1, where the 73 KB im2col panel of a 64-channel 3x3 conv did not.
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/cpu_capability.h"
#include "kernels/cpu/conv/conv_detail.h"
#include "kernels/cpu/gemm/packed_gemm.h"
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "kernels/cpu/gemm/tile512.h"
#endif

namespace ember::conv::detail {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

namespace {

// Where one tile reads: input channel c, kernel offset (a, b, e) and output column j are at
// x[c * cs + a * step[0] + b * step[1] + e * step[2] + j] from the tile's row start.
struct Taps {
  int64_t C, cs;
  int64_t k[3], step[3];
};

// R output channels x 32 outputs. The weights are tile-packed: the R values of tap k (k = (c, a, b,
// e) in order) at w[k * R]; one base register serves every broadcast. KW: the kernel's width along
// the row when fixed (3: unrolled), else 0 (read from t).
template <int R, int KW>
EMBER_TARGET_AVX512 void direct_tile(const float* w, const float* x, const Taps& t, float* y, int64_t ldy, bool acc,
                                     int64_t n) {
  __m512 c0[R], c1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) c0[r] = c1[r] = _mm512_setzero_ps();
  for (int64_t c = 0; c < t.C; ++c)
    for (int64_t a = 0; a < t.k[0]; ++a)
      for (int64_t b = 0; b < t.k[1]; ++b) {
        const float* row = x + c * t.cs + a * t.step[0] + b * t.step[1];
        const int64_t kw = KW ? KW : t.k[2];
        for (int64_t e = 0; e < kw; ++e, w += R) {
          const __m512 b0 = _mm512_loadu_ps(row + e * t.step[2]), b1 = _mm512_loadu_ps(row + e * t.step[2] + 16);
#pragma GCC unroll 12
          for (int r = 0; r < R; ++r) {
            const __m512 av = _mm512_set1_ps(w[r]);
            c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
            c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
          }
        }
      }
  tile512::store<R>(c0, c1, y, ldy, acc, n);
}

using DirectFn = void (*)(const float*, const float*, const Taps&, float*, int64_t, bool, int64_t);
constexpr int kRows = 12;
template <int KW>
constexpr DirectFn kDirect[kRows + 1] = {nullptr,
                                         direct_tile<1, KW>,
                                         direct_tile<2, KW>,
                                         direct_tile<3, KW>,
                                         direct_tile<4, KW>,
                                         direct_tile<5, KW>,
                                         direct_tile<6, KW>,
                                         direct_tile<7, KW>,
                                         direct_tile<8, KW>,
                                         direct_tile<9, KW>,
                                         direct_tile<10, KW>,
                                         direct_tile<11, KW>,
                                         direct_tile<12, KW>};

// Copies sample x (C, I0, I1, I2) into xp (C, P0, P1, P2) with p zeros before each dim.
void pad_sample(const float* x, float* xp, const Geometry& g, const int64_t* P) {
  const int64_t I0 = g.img[0], I1 = g.img[1], I2 = g.img[2];
  std::memset(xp, 0, sizeof(float) * g.img_c * P[0] * P[1] * P[2]);
  for (int64_t c = 0; c < g.img_c; ++c)
    for (int64_t i0 = 0; i0 < I0; ++i0)
      for (int64_t i1 = 0; i1 < I1; ++i1)
        std::memcpy(xp + ((c * P[0] + i0 + g.p[0]) * P[1] + i1 + g.p[1]) * P[2] + g.p[2],
                    x + ((c * I0 + i0) * I1 + i1) * I2, sizeof(float) * I2);
}

// Weight gradient, one tile: kernel rows [a0, a0 + KH) x all KW columns of input channel c
// (KH * KW taps, rows of C ldc apart) x 32 output channels, summed over one sample's output
// positions. Tap (a, b) at output (o1, o2) reads the padded channel xc at
// (o1*s1 + a*d1) * P2 + o2*s2 + b*d2; B holds the output gradient transposed, one row of 32
// channels per position.
template <int KH, int KW>
EMBER_TARGET_AVX512 void wgrad_tile(const float* xc, int64_t a0, const Geometry& g, int64_t P2, const float* B,
                                    float* C, int64_t ldc, int64_t n) {
  __m512 c0[KH * KW], c1[KH * KW];
#pragma GCC unroll 12
  for (int r = 0; r < KH * KW; ++r) c0[r] = c1[r] = _mm512_setzero_ps();
  const int64_t s2 = g.s[2], d2 = g.d[2], rstep = g.d[1] * P2;
  for (int64_t o1 = 0; o1 < g.col[1]; ++o1) {
    const float* rows[KH];
    for (int a = 0; a < KH; ++a) rows[a] = xc + o1 * g.s[1] * P2 + (a0 + a) * rstep;
    for (int64_t o2 = 0; o2 < g.col[2]; ++o2, B += 32) {
      const __m512 b0 = _mm512_load_ps(B), b1 = _mm512_load_ps(B + 16);
      for (int a = 0; a < KH; ++a)
        for (int b = 0; b < KW; ++b) {
          const __m512 av = _mm512_set1_ps(rows[a][o2 * s2 + b * d2]);
          c0[a * KW + b] = _mm512_fmadd_ps(av, b0, c0[a * KW + b]);
          c1[a * KW + b] = _mm512_fmadd_ps(av, b1, c1[a * KW + b]);
        }
    }
  }
  tile512::store<KH * KW>(c0, c1, C, ldc, true, n);
}

using WgradFn = void (*)(const float*, int64_t, const Geometry&, int64_t, const float*, float*, int64_t, int64_t);

// Tiles by kernel width (3, 4 or 5) and rows per tile (up to 12 taps: 24 accumulators).
constexpr int kMaxRows = 4;
constexpr WgradFn kWgrad[3][kMaxRows + 1] = {
    {nullptr, wgrad_tile<1, 3>, wgrad_tile<2, 3>, wgrad_tile<3, 3>, wgrad_tile<4, 3>},
    {nullptr, wgrad_tile<1, 4>, wgrad_tile<2, 4>, wgrad_tile<3, 4>, nullptr},
    {nullptr, wgrad_tile<1, 5>, wgrad_tile<2, 5>, nullptr, nullptr}};

int64_t wgrad_rows(int64_t kw) { return 12 / kw; }  // kernel rows per tile for width kw

}  // namespace

int64_t direct_wgrad_scratch(const Geometry& g) {
  const bool fits = g.nsp <= 2 && g.k[2] >= 3 && g.k[2] <= 5;
  return fits ? g.img_c * (g.img[1] + 2 * g.p[1]) * (g.img[2] + 2 * g.p[2]) : 0;
}

void direct_wgrad_sample(const float* x, const float* pk, float* part, float* xp, const Geometry& g) {
  const int64_t W = PackedB::kWidth, OC = g.col_c, L = g.col_numel(), K = g.k_numel(), kw = g.k[2];
  const int64_t P[3] = {1, g.img[1] + 2 * g.p[1], g.img[2] + 2 * g.p[2]};
  pad_sample(x, xp, g, P);
  for (int64_t c = 0; c < g.img_c; ++c)
    for (int64_t a0 = 0, h; a0 < g.k[1]; a0 += h) {
      h = std::min(wgrad_rows(kw), g.k[1] - a0);
      const WgradFn tile = kWgrad[kw - 3][h];
      for (int64_t q = 0; q * W < OC; ++q)
        tile(xp + c * P[1] * P[2], a0, g, P[2], pk + q * L * W, part + (c * K + a0 * kw) * OC + q * W, OC,
             std::min(W, OC - q * W));
    }
}

bool direct_forward(const float* img, const float* w, const float* bias, float* out, const Geometry& g) {
  const int64_t P[3] = {g.img[0] + 2 * g.p[0], g.img[1] + 2 * g.p[1], g.img[2] + 2 * g.p[2]};
  const int64_t O0 = g.col[0], O1 = g.col[1], O2 = g.col[2];
  // Each output row is a run of tile columns of its own, or (unit row and column strides) an
  // output plane is one run over the padded width, whose P2 - O2 columns between rows are
  // computed and dropped: short rows then still fill the tiles. The one using more lanes wins.
  const int64_t W = PackedB::kWidth;
  const double row_use = double(O2) / double((O2 + W - 1) / W * W), flat_use = double(O2) / double(P[2]);
  const bool flat = g.s[1] == 1 && flat_use > row_use;
  if (g.s[2] != 1 || std::max(row_use, g.s[1] == 1 ? flat_use : 0.0) < 0.6) return false;
  const int64_t K = g.k_numel(), L = g.col_numel(), CK = g.img_c * K;
  const int64_t xp_size = g.img_c * P[0] * P[1] * P[2];
  const int64_t Lp = flat ? O0 * O1 * P[2] : L, pitch = flat ? P[2] : O2;  // the tiles' output plane
  const Taps t{g.img_c, P[0] * P[1] * P[2], {g.k[0], g.k[1], g.k[2]}, {g.d[0] * P[1] * P[2], g.d[1] * P[2], g.d[2]}};
  // input channels per block: 288 taps (32 channels of 3x3) measured best on 64->64 3x3
  const int64_t cb = std::max<int64_t>(1, 288 / K);
  // Weights tile-packed: output channels [i, i + r) as CK rows of r values, tile after tile.
  std::vector<float> wp(static_cast<size_t>(g.col_c * CK));
  for (int64_t i = 0, r; i < g.col_c; i += r) {
    r = tile_rows(g.col_c - i, kRows);
    for (int64_t k = 0; k < CK; ++k)
      for (int64_t q = 0; q < r; ++q) wp[i * CK + k * r + q] = w[(i + q) * CK + k];
  }
  const DirectFn* tiles = g.k[2] == 3 ? kDirect<3> : kDirect<0>;
  // Runs: (input offset, output offset in the padded plane, length).
  std::vector<std::array<int64_t, 3>> runs;
  for (int64_t o0 = 0; o0 < O0; ++o0)
    for (int64_t o1 = 0; o1 < (flat ? 1 : O1); ++o1)
      runs.push_back(
          {(o0 * g.s[0] * P[1] + o1 * g.s[1]) * P[2], (o0 * O1 + o1) * pitch, flat ? (O1 - 1) * P[2] + O2 : O2});
  // The last tile loads up to 32 columns past the end of the sample: slack keeps that inside.
  for_samples<float>(g, xp_size + W + (flat ? g.col_c * Lp : 0), [&](int64_t n0, int64_t n1, float* xp) {
    std::memset(xp + xp_size, 0, sizeof(float) * W);
    for (int64_t n = n0; n < n1; ++n) {
      pad_sample(img + n * g.img_c * g.img_numel(), xp, g, P);
      float* y = out + n * g.col_c * L;
      float* yt = flat ? xp + xp_size + W : y;  // where the tiles write
      if (!flat && bias)
        for (int64_t o = 0; o < g.col_c; ++o) std::fill(y + o * L, y + (o + 1) * L, bias[o]);
      // A block of input channels at a time, so one tile's weights and input rows stay in L1
      // together; later blocks add onto the partial sums.
      for (int64_t c0 = 0; c0 < g.img_c; c0 += cb) {
        Taps tb = t;
        tb.C = std::min(cb, g.img_c - c0);
        const bool acc = c0 > 0 || (!flat && bias);
        for (const auto& [xo, yo, len] : runs)
          for (int64_t j = 0; j < len; j += W)
            for (int64_t i = 0, r; i < g.col_c; i += r) {
              r = tile_rows(g.col_c - i, kRows);
              tiles[r](wp.data() + i * CK + c0 * K * r, xp + c0 * t.cs + xo + j, tb, yt + i * Lp + yo + j, Lp, acc,
                       std::min(W, len - j));
            }
      }
      if (flat)  // keep the O2 real columns of each padded row, plus the bias
        for (int64_t o = 0; o < g.col_c; ++o) {
          const float b = bias ? bias[o] : 0.f;
          for (int64_t row = 0; row < O0 * O1; ++row)
            for (int64_t j = 0; j < O2; ++j) y[(o * O0 * O1 + row) * O2 + j] = yt[o * Lp + row * P[2] + j] + b;
        }
    }
  });
  return true;
}

#else

bool direct_forward(const float*, const float*, const float*, float*, const Geometry&) { return false; }
int64_t direct_wgrad_scratch(const Geometry&) { return 0; }
void direct_wgrad_sample(const float*, const float*, float*, float*, const Geometry&) {}

#endif

}  // namespace ember::conv::detail
