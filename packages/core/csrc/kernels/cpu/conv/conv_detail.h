// Pieces the convolution kernel files share: the per-sample threading, scratch buffers and the
// valid-output-range arithmetic of im2col.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>

#include "core/allocator.h"
#include "core/parallel.h"
#include "kernels/cpu/conv/conv_kernels.h"

namespace ember::conv::detail {

// ceil(a / b) for b > 0 and any sign of a (no a + b - 1: b may be near INT64_MAX).
inline int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? a / b + (a % b != 0) : -((-a) / b); }

// Output positions o in [lo, hi) read input o*s - p + off inside [0, n).
inline void valid_range(int64_t n, int64_t s, int64_t p, int64_t off, int64_t out, int64_t& lo, int64_t& hi) {
  lo = std::max<int64_t>(0, ceil_div(p - off, s));
  hi = std::min<int64_t>(out, ceil_div(n + p - off, s));
  if (hi < lo) hi = lo;
}

// Scratch for one thread, left uninitialised (every entry is written before use). From ember's
// caching allocator: a padded sample is ~300 KB, which glibc maps fresh (and faults in) per call.
template <class T>
struct Buffer {
  explicit Buffer(int64_t n) : bytes(static_cast<size_t>(std::max<int64_t>(n, 0)) * sizeof(T)) {
    p = bytes ? static_cast<T*>(cpu_alloc(bytes)) : nullptr;
  }
  ~Buffer() {
    if (p) cpu_free(p, bytes);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  T* data() const { return p; }
  size_t bytes;
  T* p;
};

// body(n0, n1, buf) for sample ranges, each range with its own scratch of `bufsize`. With several
// threads and samples, samples go to ember's threads and each GEMM stays on its thread: many small
// threaded GEMMs cost more in hand-offs than they gain.
template <class T, class F>
void for_samples(const Geometry& g, int64_t bufsize, const F& body) {
  const int64_t macs = g.N * g.col_c * (g.img_c / g.groups) * g.k_numel() * g.col_numel();
  if (get_num_threads() <= 1 || g.N <= 1 || in_parallel_region() || macs < (int64_t(1) << 22)) {
    Buffer<T> buf(bufsize);
    body(int64_t(0), g.N, buf.data());
    return;
  }
  parallel_for(0, g.N, 1, [&](int64_t n0, int64_t n1) {
    Buffer<T> buf(bufsize);
    body(n0, n1, buf.data());
  });
}

// One sample's columns for channels [c0, c1): col[((c - c0) * K + kk) * L + l] = x[c, l*s - p +
// kk*d] (0 outside the image).
void im2col_f32(const float* x, float* col, const Geometry& g, int64_t c0, int64_t c1);

// The float32 AVX-512 paths of conv_packed.cpp; each returns false (doing nothing) where it does
// not apply, and the caller takes the generic im2col + BLAS path.
bool packed_forward(const float* img, const float* w, const float* bias, float* out, const Geometry& g);
bool packed_backward_img(const float* cols, const float* w, float* out, const Geometry& g);
bool packed_weight_grad(const float* img, const float* cols, float* gw, const Geometry& g);
// conv_direct.cpp, called by the packed paths after their checks (groups == 1, AVX-512):
// the forward without im2col, for unit column stride and long rows.
bool direct_forward(const float* img, const float* w, const float* bias, float* out, const Geometry& g);
// The weight gradient of a 1-d or 2-d conv with kernel width 3 to 5, without im2col: the scratch floats it needs for a
// padded sample (0: does not apply), and one sample's sum into part (CK x OC) given the output gradient transposed into
// panels (pk).
int64_t direct_wgrad_scratch(const Geometry& g);
void direct_wgrad_sample(const float* x, const float* pk, float* part, float* xp, const Geometry& g);

}  // namespace ember::conv::detail
