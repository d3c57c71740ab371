// float32 convolution on the AVX-512 tiles of packed_gemm.h (groups == 1).
//
// Forward: long rows with unit column stride go to the direct kernel (conv_direct.cpp);
// otherwise the columns of 32 output positions (one panel) are built and multiplied while in
// cache, so the full im2col matrix is never written and no BLAS packing copies it a second time
// (OpenBLAS spent ~20% of a conv in its copy routines here).
// Input gradient: for unit strides it is itself a forward convolution of the output gradient
// with the flipped, transposed weight, so it takes the forward's path (no col2im).
// Weight gradient: against the output gradient transposed into panels once per sample; kernel
// widths 3-5 read a padded copy of the sample directly, others a few channels' columns at a time.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "core/cpu_capability.h"
#include "kernels/cpu/conv/conv_detail.h"
#include "kernels/cpu/gemm/packed_gemm.h"

namespace ember::conv::detail {

namespace {

constexpr int64_t W = PackedB::kWidth;

bool applies(const Geometry& g) { return g.groups == 1 && packed_gemm_available(); }

// The tiles load panels with aligned loads; scratch gets 16 spare floats to align into.
float* align64(float* p) { return reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t(63)); }

// Panel column j < n holds output position l0 + j; row c*K + kk holds x[c, pos*s - p + kk*d] (0
// outside the image). Columns n..W are zero (the ragged last panel). Runs only where the AVX-512
// tiles do, so its copies may use zmm registers.
EMBER_TARGET_AVX512 void build_panel(const float* x, float* pan, const Geometry& g, int64_t l0, int64_t n) {
  const int64_t I1 = g.img[1], I2 = g.img[2], I = g.img_numel();
  const int64_t O1 = g.col[1], O2 = g.col[2], K = g.k_numel(), s2 = g.s[2];
  if (n < W)
    for (int64_t r = 0; r < g.img_c * K; ++r) std::memset(pan + r * W + n, 0, sizeof(float) * (W - n));
  int64_t o2 = l0 % O2, row = l0 / O2;  // row = o0 * O1 + o1
  for (int64_t j = 0; j < n; row++, o2 = 0) {
    const int64_t run = std::min(O2 - o2, n - j), o0 = row / O1, o1 = row % O1;
    for (int64_t a = 0, kk = 0; a < g.k[0]; ++a)
      for (int64_t b = 0; b < g.k[1]; ++b)
        for (int64_t e = 0; e < g.k[2]; ++e, ++kk) {
          const int64_t i0 = o0 * g.s[0] - g.p[0] + a * g.d[0], i1 = o1 * g.s[1] - g.p[1] + b * g.d[1];
          // outputs [lo, hi) of this run read inside the image row
          int64_t lo = o2, hi = o2;
          if (i0 >= 0 && i0 < g.img[0] && i1 >= 0 && i1 < I1) {
            valid_range(I2, s2, g.p[2], e * g.d[2], O2, lo, hi);
            lo = std::clamp(lo, o2, o2 + run);
            hi = std::clamp(hi, lo, o2 + run);
          }
          const int64_t base = (i0 * I1 + i1) * I2 - g.p[2] + e * g.d[2];  // index of output o at base + o*s2
          for (int64_t c = 0; c < g.img_c; ++c) {
            float* dst = pan + (c * K + kk) * W + j;  // output o goes to dst[o - o2]
            const float* xc = x + c * I;
            for (int64_t o = o2; o < lo; ++o) dst[o - o2] = 0.f;
            if (s2 == 1) {
              for (int64_t o = lo; o < hi; ++o) dst[o - o2] = xc[base + o];
            } else {
              for (int64_t o = lo; o < hi; ++o) dst[o - o2] = xc[base + o * s2];
            }
            for (int64_t o = hi; o < o2 + run; ++o) dst[o - o2] = 0.f;
          }
        }
    j += run;
  }
}

}  // namespace

bool packed_forward(const float* img, const float* w, const float* bias, float* out, const Geometry& g) {
  if (!applies(g)) return false;
  if (direct_forward(img, w, bias, out, g)) return true;
  const int64_t K = g.k_numel(), L = g.col_numel(), I = g.img_numel(), CK = g.img_c * K;
  for_samples<float>(g, CK * W + 16, [&](int64_t n0, int64_t n1, float* buf) {
    float* pan = align64(buf);
    for (int64_t n = n0; n < n1; ++n) {
      const float* x = img + n * g.img_c * I;
      float* y = out + n * g.col_c * L;
      if (bias)  // the tiles add onto the bias: no second pass over the output
        for (int64_t o = 0; o < g.col_c; ++o) std::fill(y + o * L, y + (o + 1) * L, bias[o]);
      for (int64_t l0 = 0; l0 < L; l0 += W) {
        const int64_t cnt = std::min(W, L - l0);
        build_panel(x, pan, g, l0, cnt);
        packed_gemm_panel(g.col_c, CK, w, CK, pan, y + l0, L, bias != nullptr, cnt);
      }
    }
  });
  return true;
}

bool packed_backward_img(const float* cols, const float* w, float* out, const Geometry& g) {
  if (!applies(g)) return false;
  // The forward convolution f of cols whose result is this adjoint: unit strides,
  // padding d*(k-1) - p, weight flipped in space with in/out channels swapped.
  Geometry f = g;
  f.img_c = g.col_c;
  f.col_c = g.img_c;
  for (int i = 0; i < 3; ++i) {
    f.img[i] = g.col[i];
    f.col[i] = g.img[i];
    f.p[i] = g.d[i] * (g.k[i] - 1) - g.p[i];
    // strided, or a transposed conv's output_padding: not a plain convolution of cols
    if (g.s[i] != 1 || f.p[i] < 0 || f.col[i] != f.img[i] + 2 * f.p[i] - g.d[i] * (g.k[i] - 1)) return false;
  }
  const int64_t K = g.k_numel();
  // The padding of f is made of zeros no input supplies: an inf / NaN weight times one would put
  // NaN where a transposed convolution has no product (aten's native kernel: the GEMM + col2im).
  for (int64_t i = 0; i < g.col_c * g.img_c * K; ++i)
    if (!std::isfinite(w[i])) return false;
  std::vector<float> wf(static_cast<size_t>(g.col_c * g.img_c * K));
  for (int64_t o = 0; o < g.col_c; ++o)
    for (int64_t c = 0; c < g.img_c; ++c)
      for (int64_t kk = 0; kk < K; ++kk) wf[(c * g.col_c + o) * K + (K - 1 - kk)] = w[(o * g.img_c + c) * K + kk];
  return packed_forward(cols, wf.data(), nullptr, out, f);
}

bool packed_weight_grad(const float* img, const float* cols, float* gw, const Geometry& g) {
  if (!applies(g)) return false;
  const int64_t K = g.k_numel(), L = g.col_numel(), I = g.img_numel(), OC = g.col_c, CK = g.img_c * K;
  const int64_t Q = (OC + W - 1) / W;
  // channels per block of columns: about 256 KiB of them, so a block stays in L2
  const int64_t cb = std::clamp<int64_t>((int64_t(1) << 16) / std::max<int64_t>(K * L, 1), 1, g.img_c);
  const int64_t direct = direct_wgrad_scratch(g);  // widths 3-5 read a padded sample instead
  const int64_t scratch = CK * OC + Q * L * W + 16 + (direct ? direct : cb * K * L);
  std::vector<float> acc(static_cast<size_t>(CK * OC), 0.f);  // the gradient transposed: CK x OC
  std::mutex merge;
  for_samples<float>(g, scratch, [&](int64_t n0, int64_t n1, float* buf) {
    float* part = buf;
    float* pk = align64(buf + CK * OC);  // output gradient^T: Q panels of L rows
    float* colb = pk + Q * L * W;
    std::fill(part, part + CK * OC, 0.f);
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t q = 0; q < Q; ++q)  // panel q, row l, column j = output gradient (q*W + j, l)
        pack_panel_transposed(cols + (n * OC + q * W) * L, L, L, std::min(W, OC - q * W), pk + q * L * W);
      const float* x = img + n * g.img_c * I;
      if (direct) {
        direct_wgrad_sample(x, pk, part, colb, g);
        continue;
      }
      for (int64_t c0 = 0; c0 < g.img_c; c0 += cb) {
        const int64_t c1 = std::min(g.img_c, c0 + cb);
        im2col_f32(x, colb, g, c0, c1);
        for (int64_t q = 0; q < Q; ++q)
          packed_gemm_panel((c1 - c0) * K, L, colb, L, pk + q * L * W, part + c0 * K * OC + q * W, OC, true,
                            std::min(W, OC - q * W));
      }
    }
    std::lock_guard<std::mutex> lock(merge);
    for (int64_t i = 0; i < CK * OC; ++i) acc[i] += part[i];
  });
  for (int64_t o = 0; o < OC; ++o)
    for (int64_t ck = 0; ck < CK; ++ck) gw[o * CK + ck] = acc[ck * OC + o];
  return true;
}

}  // namespace ember::conv::detail
