// Average pooling (windowed and adaptive) and their backward kernels. The backward ops are
// ops of their own (avg_pool2d_backward, ...) so double backward is the forward op again.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/cpu_capability.h"
#include "core/parallel.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/nn/nn_pool.h"

namespace ember {

using pool::Arr3;

namespace {

// A window along one dim: the clamped range [lo, hi) and the padded extent (for the divisor).
struct Win {
  int64_t lo, hi, padded;
};

struct AvgGeometry {
  Arr3 in{1, 1, 1}, out{1, 1, 1};
  std::array<std::vector<Win>, 3> wins;
  // Divisor rule: override, else the padded window size, else the clamped window size.
  std::optional<int64_t> divisor_override;
  bool count_include_pad = true;
  // The windows cover every input element exactly once (stride == kernel, no padding or
  // leftover): the backward then writes each element once instead of accumulating.
  bool tiles = false;
  // Window rule: windowed (kernel k, stride s, padding pd) or adaptive. The windows are built only
  // once the result is allocated: 2**31 output positions would otherwise take seconds to describe
  // before an allocation that fails.
  bool adaptive = false;
  Arr3 k{1, 1, 1}, s{1, 1, 1}, pd{0, 0, 0};

  void build_windows() {
    for (int d = 0; d < 3; ++d)
      for (int64_t o = 0; o < out[d]; ++o) {
        if (adaptive) {
          const int64_t lo = pool::adaptive_start(o, in[d], out[d]), hi = pool::adaptive_end(o, in[d], out[d]);
          wins[d].push_back(Win{lo, hi, hi - lo});
        } else {
          const int64_t start = o * s[d] - pd[d], end = std::min(start + k[d], in[d] + pd[d]);
          wins[d].push_back(Win{std::max<int64_t>(start, 0), std::min(end, in[d]), end - start});
        }
      }
  }

  int64_t divisor(const Win& d, const Win& h, const Win& w) const {
    if (divisor_override) return *divisor_override;
    if (count_include_pad) return d.padded * h.padded * w.padded;
    return (d.hi - d.lo) * (h.hi - h.lo) * (w.hi - w.lo);
  }
};

template <class scalar_t>
using avg_acc_t = std::conditional_t<std::is_integral_v<scalar_t>, int64_t, opmath_t<scalar_t>>;

// aten's `x / k` for an int64 k computed in T: c10's half types convert k to T first, and
// the quotient is rounded to T.
template <class T>
inline T div_int(T x, int64_t k) {
  return static_cast<T>(x / static_cast<T>(k));
}

// Forward. Each output's window is summed in PyTorch's order -- (d, h, w) row-major, one
// sequential sum -- so results match it where large terms cancel; acc_t is the sum's type:
// the op-math type, but the input type for adaptive 3-d (aten's adaptive_avg_pool3d frame sums
// and divides in scalar_t). Speed comes from summing many outputs at once, never from
// reordering one output's terms: per output row, the whole windows at a uniform stride s and
// width k (the interior) add one input row at a time for the whole run of outputs -- with s = 1
// one vector add per window tap, with s > 1 per output (compile-time s and k for the common
// shapes, so the strided loads vectorise too); windows clipped by padding or ceil mode are
// summed one output at a time; rows without a long interior (uneven adaptive windows, few
// outputs) sum kLanes planes side by side (avg_row_lanes).
template <class scalar_t, class acc_t>
inline void add_to(acc_t& sum, scalar_t v) {
  sum = static_cast<acc_t>(sum + static_cast<acc_t>(v));
}

// acc[j] += p[j * S + 0], ..., p[j * S + K - 1] for j < n (S, K > 0 compile-time; 0: runtime s, k).
template <int S, int K, class scalar_t, class acc_t>
inline void strided_taps(acc_t* acc, const scalar_t* p, int64_t n, int64_t s, int64_t k) {
  if constexpr (S > 0) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      acc_t t = acc[j];
      for (int kw = 0; kw < K; ++kw) add_to(t, p[j * S + kw]);
      acc[j] = t;
    }
  } else {
    for (int64_t j = 0; j < n; ++j) {
      acc_t t = acc[j];
      for (int64_t kw = 0; kw < k; ++kw) add_to(t, p[j * s + kw]);
      acc[j] = t;
    }
  }
}

// The strided interior's taps with compile-time s and k where common (so its loads vectorise).
template <class scalar_t, class acc_t>
inline void interior_taps(acc_t* acc, const scalar_t* p, int64_t n, int64_t s, int64_t k) {
  if (s == 2 && k == 2) return strided_taps<2, 2>(acc, p, n, s, k);
  if (s == 2 && k == 3) return strided_taps<2, 3>(acc, p, n, s, k);
  if (s == 3 && k == 3) return strided_taps<3, 3>(acc, p, n, s, k);
  strided_taps<0, 0>(acc, p, n, s, k);
}

template <class scalar_t, class acc_t>
inline scalar_t avg_finish(const AvgGeometry& g, acc_t sum, const Win& wd, const Win& wh, const Win& ww) {
  if (wd.lo >= wd.hi || wh.lo >= wh.hi || ww.lo >= ww.hi) return scalar_t(0);
  if (g.adaptive)  // aten: sum / kd / kh / kw (adaptive 2-d: kd = 1)
    return static_cast<scalar_t>(div_int(div_int(div_int(sum, wd.hi - wd.lo), wh.hi - wh.lo), ww.hi - ww.lo));
  return static_cast<scalar_t>(div_int(sum, g.divisor(wd, wh, ww)));
}

// The interior run [a, c) of outputs along W: whole windows, width k at stride s.
struct Interior {
  int64_t a = 0, c = 0;
};

// One output row (od, oh) of one plane, summed into acc (ow_n values).
template <class scalar_t, class acc_t>
inline void avg_row(const AvgGeometry& g, const scalar_t* xb, scalar_t* yr, int64_t od, int64_t oh, Interior in,
                    acc_t* acc) {
  const int64_t ih_n = g.in[1], iw_n = g.in[2], ow_n = g.out[2];
  const std::vector<Win>& ws = g.wins[2];
  const int64_t s = g.s[2], k = g.k[2], pd = g.pd[2], a = in.a, c = in.c;
  const Win& wd = g.wins[0][od];
  const Win& wh = g.wins[1][oh];
  std::fill(acc, acc + ow_n, acc_t(0));
  for (int64_t id = wd.lo; id < wd.hi; ++id)
    for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
      const scalar_t* xr = xb + (id * ih_n + ih) * iw_n;
      for (int64_t ow = 0; ow < a; ++ow)
        for (int64_t iw = ws[ow].lo; iw < ws[ow].hi; ++iw) add_to(acc[ow], xr[iw]);
      if (c > a && s == 1) {
        for (int64_t kw = 0; kw < k; ++kw) {
          const scalar_t* p = xr + a - pd + kw;
          acc_t* q = acc + a;
#pragma omp simd
          for (int64_t j = 0; j < c - a; ++j) add_to(q[j], p[j]);
        }
      } else if (c > a) {
        interior_taps(acc + a, xr + a * s - pd, c - a, s, k);
      }
      for (int64_t ow = c; ow < ow_n; ++ow)
        for (int64_t iw = ws[ow].lo; iw < ws[ow].hi; ++iw) add_to(acc[ow], xr[iw]);
    }
  for (int64_t ow = 0; ow < ow_n; ++ow) yr[ow] = avg_finish<scalar_t>(g, acc[ow], wd, wh, ws[ow]);
}

// One output row of kLanes planes at once, for rows without a long interior: each input
// row is first interleaved (pack[iw * kLanes + l] = plane l's x[iw]), so each window tap is
// one vector add over the planes -- any window shape, each output's own order kept.
constexpr int64_t kLanes = 8;

template <class scalar_t, class acc_t>
inline void avg_row_lanes(const AvgGeometry& g, const scalar_t* xb, scalar_t* yb, int64_t od, int64_t oh, acc_t* pack,
                          acc_t* acc) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t ih_n = g.in[1], iw_n = g.in[2], ow_n = g.out[2];
  const std::vector<Win>& ws = g.wins[2];
  const Win& wd = g.wins[0][od];
  const Win& wh = g.wins[1][oh];
  std::fill(acc, acc + ow_n * kLanes, acc_t(0));
  for (int64_t id = wd.lo; id < wd.hi; ++id)
    for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
      const scalar_t* xr = xb + (id * ih_n + ih) * iw_n;
      for (int64_t iw = 0; iw < iw_n; ++iw)
        for (int64_t l = 0; l < kLanes; ++l) pack[iw * kLanes + l] = static_cast<acc_t>(xr[l * in_plane + iw]);
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        acc_t t[kLanes];
        for (int64_t l = 0; l < kLanes; ++l) t[l] = acc[ow * kLanes + l];
        for (int64_t iw = ws[ow].lo; iw < ws[ow].hi; ++iw)
          for (int64_t l = 0; l < kLanes; ++l) add_to(t[l], pack[iw * kLanes + l]);
        for (int64_t l = 0; l < kLanes; ++l) acc[ow * kLanes + l] = t[l];
      }
    }
  const int64_t y0 = (od * g.out[1] + oh) * ow_n;
  for (int64_t ow = 0; ow < ow_n; ++ow)
    for (int64_t l = 0; l < kLanes; ++l)
      yb[l * out_plane + y0 + ow] = avg_finish<scalar_t>(g, acc[ow * kLanes + l], wd, wh, ws[ow]);
}

// A task's planes [b0, b1): kLanes at a time unless the rows have a long interior (which
// vectorises along the row), and the leftover planes one at a time.
template <class scalar_t, class acc_t>
inline void avg_planes(const AvgGeometry& g, const scalar_t* xp, scalar_t* yp, int64_t b0, int64_t b1, Interior in) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  const bool lanes = in.c - in.a < 16;
  std::vector<acc_t> acc(static_cast<size_t>(g.out[2] * (lanes ? kLanes : 1)));
  std::vector<acc_t> pack(static_cast<size_t>(lanes ? g.in[2] * kLanes : 0));
  int64_t b = b0;
  for (; lanes && b + kLanes <= b1; b += kLanes)
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        avg_row_lanes<scalar_t, acc_t>(g, xp + b * in_plane, yp + b * out_plane, od, oh, pack.data(), acc.data());
  for (; b < b1; ++b)
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        avg_row<scalar_t, acc_t>(g, xp + b * in_plane, yp + b * out_plane + (od * g.out[1] + oh) * g.out[2], od, oh, in,
                                 acc.data());
}

template <class scalar_t, class acc_t>
void avg_planes_base(const AvgGeometry& g, const scalar_t* xp, scalar_t* yp, int64_t b0, int64_t b1, Interior in) {
  avg_planes<scalar_t, acc_t>(g, xp, yp, b0, b1, in);
}
#ifdef EMBER_HAVE_TARGETS
// The same with AVX2 vectors: twice the lanes of the SSE2 baseline, and strided loads by permutes.
template <class scalar_t, class acc_t>
EMBER_TARGET_AVX2 void avg_planes_avx2(const AvgGeometry& g, const scalar_t* xp, scalar_t* yp, int64_t b0, int64_t b1,
                                       Interior in) {
  avg_planes<scalar_t, acc_t>(g, xp, yp, b0, b1, in);
}
#endif

template <class scalar_t, class acc_t>
void avg_forward_kernel(const AvgGeometry& g, int64_t planes, const scalar_t* xp, scalar_t* yp) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t ow_n = g.out[2];
  const std::vector<Win>& ws = g.wins[2];
  const int64_t s = g.s[2], k = g.k[2], pd = g.pd[2];
  auto whole = [&](int64_t ow) { return k > 0 && ws[ow].lo == ow * s - pd && ws[ow].hi - ws[ow].lo == k; };
  Interior in;
  while (in.a < ow_n && !whole(in.a)) ++in.a;
  in.c = in.a;
  while (in.c < ow_n && whole(in.c)) ++in.c;
  auto run = avg_planes_base<scalar_t, acc_t>;
#ifdef EMBER_HAVE_TARGETS
  if (cpu_has_avx2()) run = avg_planes_avx2<scalar_t, acc_t>;
#endif
  GilRelease nogil;  // also when parallel_for runs inline (one thread, small input)
  parallel_for(0, planes, std::max<int64_t>(kLanes, pool::plane_grain(in_plane + out_plane)),
               [&](int64_t b0, int64_t b1) { run(g, xp, yp, b0, b1, in); });
}

// Backward: x[window] += y[o] / divisor (x is the zero-initialised grad_input, y the
// grad_output); the quotient is taken in scalar_t as aten's grad_delta is.
template <class scalar_t>
void avg_backward_kernel(const AvgGeometry& g, int64_t planes, scalar_t* xp, const scalar_t* yp) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  GilRelease nogil;  // also when parallel_for runs inline (one thread, small input)
  parallel_for(0, planes, pool::plane_grain(in_plane + out_plane), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      scalar_t* xb = xp + b * in_plane;
      const scalar_t* yb = yp + b * out_plane;
      for (int64_t od = 0; od < g.out[0]; ++od) {
        const Win& wd = g.wins[0][od];
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          const Win& wh = g.wins[1][oh];
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            const Win& ww = g.wins[2][ow];
            if (wd.lo >= wd.hi || wh.lo >= wh.hi || ww.lo >= ww.hi) continue;
            const scalar_t y = yb[(od * g.out[1] + oh) * g.out[2] + ow];
            const scalar_t v = g.adaptive ? div_int(div_int(div_int(y, wd.hi - wd.lo), wh.hi - wh.lo), ww.hi - ww.lo)
                                          : div_int(y, g.divisor(wd, wh, ww));
            for (int64_t id = wd.lo; id < wd.hi; ++id)
              for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
                scalar_t* row = xb + (id * g.in[1] + ih) * g.in[2];
                if (g.tiles) {
                  for (int64_t iw = ww.lo; iw < ww.hi; ++iw) row[iw] = v;
                } else {
                  for (int64_t iw = ww.lo; iw < ww.hi; ++iw) row[iw] = static_cast<scalar_t>(row[iw] + v);
                }
              }
          }
        }
      }
    }
  });
}

AvgGeometry avg_geometry(const Tensor& self, int n, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                         bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                         const char* name) {
  const Arr3 k = pool::expand_arg(kernel_size, n, 1, name, "kernel_size");
  const Arr3 s = pool::expand_arg(stride, n, 1, name, "stride", &k);
  const Arr3 pd = pool::expand_arg(padding, n, 0, name, "padding");
  // PyTorch's 2-d form checks the divisor, then reads input.size(-3) (an IndexError for 1-d / 2-d
  // input).
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  EMBER_CHECK_INDEX(n != 2 || self.dim() >= 3, "Dimension out of range (expected to be in range of [",
                    -std::max<int64_t>(self.dim(), 1), ", ", std::max<int64_t>(self.dim(), 1) - 1, "], but got -3)");
  for (int d = 3 - n; d < 3; ++d) EMBER_CHECK(s[d] != 0, "stride should not be zero");
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(k[d] > 0, "kernel size should be greater than zero, but got ",
                n == 3 ? str("kT: ", k[0], " ") : std::string(), "kH: ", k[1], " kW: ", k[2]);
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(s[d] > 0, "stride should be greater than zero, but got ",
                n == 3 ? str("dT: ", s[0], " ") : std::string(), "dH: ", s[1], " dW: ", s[2]);
  pool::check_pool_input(self, n, name);
  // aten's pool3d_shape_check for average pooling: the unpadded input must hold a window.
  EMBER_CHECK(n != 3 || (self.size(-3) >= k[0] && self.size(-2) >= k[1] && self.size(-1) >= k[2]),
              "input image (T: ", self.size(-3), " H: ", self.size(-2), " W: ", self.size(-1),
              ") smaller than kernel size (kT: ", k[0], " kH: ", k[1], " kW: ", k[2], ")");
  for (int d = 3 - n; d < 3; ++d) EMBER_CHECK(pd[d] >= 0, "pad must be non-negative, but got pad: ", pd[d]);
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(k[d] / 2 >= pd[d], "pad should be at most half of effective kernel size, but got pad=", pd[d],
                ", kernel_size=", k[d], " and dilation=1");
  AvgGeometry g;
  g.divisor_override = divisor_override;
  g.count_include_pad = count_include_pad;
  for (int i = 0; i < n; ++i) g.in[3 - n + i] = self.size(self.dim() - n + i);
  for (int d = 3 - n; d < 3; ++d) g.out[d] = pool::pooled_size(g.in[d], k[d], pd[d], s[d], 1, ceil_mode);
  const int64_t ch = self.size(self.dim() - n - 1);
  const Arr3& in = g.in;
  const Arr3& out = g.out;
  for (int d = 3 - n; d < 3; ++d)
    if (out[d] < 1)
      fail(ErrorKind::Runtime,
           "Given input size: ", n == 3 ? pool::sizes_x({ch, in[0], in[1], in[2]}) : pool::sizes_x({ch, in[1], in[2]}),
           ". Calculated output size: ",
           n == 3 ? pool::sizes_x({ch, out[0], out[1], out[2]}) : pool::sizes_x({ch, out[1], out[2]}),
           ". Output size is too small");
  g.tiles = true;
  for (int d = 3 - n; d < 3; ++d) g.tiles = g.tiles && s[d] == k[d] && pd[d] == 0 && g.out[d] * k[d] == g.in[d];
  g.k = k;
  g.s = s;
  g.pd = pd;
  return g;
}

AvgGeometry adaptive_geometry(const Tensor& self, int n, IntArrayRef output_size_arg, const char* name) {
  const IntArrayRef output_size(output_size_arg);  // a 1-element list is not broadcast
  EMBER_CHECK(output_size.size() == static_cast<size_t>(n), name, ": output_size must be ", n);
  auto check_rank = [&] {
    EMBER_CHECK(self.dim() == n + 1 || self.dim() == n + 2, name, "(): Expected ", n + 1, "D or ", n + 2,
                "D tensor, but got ", shape_str(self.sizes()));
  };
  // PyTorch's 2-d kernel checks the rank, then non-empty spatial dims; the 3-d one every
  // non-batch dim first, then the rank.
  if (n == 2) check_rank();
  for (int64_t i = n == 2 ? std::max<int64_t>(self.dim() - 2, 0) : 1; i < self.dim(); ++i)
    EMBER_CHECK(self.size(i) > 0, name,
                "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
                shape_str(self.sizes()), " with dimension ", i, " being empty");
  if (n == 3) check_rank();
  AvgGeometry g;
  g.count_include_pad = false;  // divisor: the window's size
  for (int i = 0; i < n; ++i) {
    EMBER_CHECK(output_size[i] >= 0, "Trying to create tensor with negative dimension ", output_size[i], ": ",
                shape_str(output_size));
    g.in[3 - n + i] = self.size(self.dim() - n + i);
    g.out[3 - n + i] = output_size[i];
  }
  // aten allocates the output ("Stride calculation overflowed") before its dtype dispatch, which
  // the 2-d kernel skips for an empty output.
  const DimVector out_shape = pool::out_shape(self, n, g.out);
  (void)contiguous_strides(out_shape);
  if (!is_floating(self.dtype()) && (n == 3 || compute_numel(out_shape) > 0)) {
    (void)empty(out_shape, self.dtype());  // aten's allocation (its out-of-memory error) comes first
    dtype_not_implemented(n == 3 ? "adaptive_avg_pool3d_cpu" : name, self.dtype());
  }
  g.tiles = true;
  for (int d = 0; d < 3; ++d) g.tiles = g.tiles && g.out[d] > 0 && g.in[d] % g.out[d] == 0;
  g.adaptive = true;
  // Evenly spaced windows (in % out == 0) are the windowed rule with kernel = stride = in / out;
  // k = 0 marks the uneven ones.
  for (int d = 0; d < 3; ++d) {
    const bool even = g.out[d] > 0 && g.in[d] % g.out[d] == 0;
    g.k[d] = even ? g.in[d] / g.out[d] : 0;
    g.s[d] = even ? g.k[d] : 1;
  }
  return g;
}

Tensor avg_forward(const Tensor& self, int n, AvgGeometry g, const char* name) {
  // aten's avg_pool kernels dispatch over the float types and Long only (3-d: float32, float64
  // and Long), empty output or not
  const ScalarType dt = self.dtype();
  const bool half = dt == ScalarType::Float16 || dt == ScalarType::BFloat16;
  if (!g.adaptive && ((is_integral(dt, true) && dt != ScalarType::Int64) || (n == 3 && half)))
    dtype_not_implemented(n == 3 ? "avg_pool3d_out_frame" : "avg_pool2d", dt);
  Tensor y = empty(pool::out_shape(self, n, g.out), self.dtype());
  if (y.numel() == 0) return y;
  pool::Planes p = pool::make_planes(self, n);
  g.build_windows();
  EMBER_DISPATCH_NO_BOOL(self.dtype(), name, [&] {
    if (g.adaptive && n == 3)
      avg_forward_kernel<scalar_t, scalar_t>(g, p.planes, p.x.data<scalar_t>(), y.data<scalar_t>());
    else avg_forward_kernel<scalar_t, avg_acc_t<scalar_t>>(g, p.planes, p.x.data<scalar_t>(), y.data<scalar_t>());
  });
  return y;
}

Tensor avg_backward(const Tensor& grad_output, const Tensor& self, int n, AvgGeometry g, const char* name) {
  DimVector expect = pool::out_shape(self, n, g.out);
  // aten checks the channel and pooled dims (check_dim_size), not the batch dim.
  const int64_t nd = self.dim();
  for (int64_t d = nd - n - 1; d < nd; ++d) check_dim_size(grad_output, nd, d, expect[d]);
  // aten never checks the batch (it reads past a smaller gradient): torch_known_wrong.py
  // "pool-backward-batch-mismatch".
  EMBER_CHECK(std::equal(expect.begin(), expect.end(), grad_output.sizes().begin()), name, ": grad_output has shape ",
              shape_str(grad_output.sizes()), ", expected ", shape_str(expect));
  // aten's kernels take int64 and floats (3-d: float32 / float64 only); the 3-d backward
  // dispatches on the input's dtype before it compares the gradient's, the 2-d one after.
  const ScalarType dt = self.dtype();
  const bool kernel_dtype =
      dt == ScalarType::Int64 || (n == 2 ? is_floating(dt) : dt == ScalarType::Float32 || dt == ScalarType::Float64);
  if (n == 3 && !g.adaptive && !kernel_dtype) dtype_not_implemented("avg_pool3d_backward_out_frame", self.dtype());
  EMBER_CHECK(grad_output.dtype() == self.dtype(), name, ": expected grad_output of dtype ", legacy_name(self.dtype()),
              " but got ", legacy_name(grad_output.dtype()));
  if (n == 2 && !g.adaptive && !kernel_dtype) dtype_not_implemented(name, self.dtype());
  const bool write_once = g.tiles && grad_output.numel() > 0;
  Tensor gx = write_once ? empty(self.sizes(), self.dtype()) : zeros(self.sizes(), self.dtype(), std::nullopt);
  if (gx.numel() == 0 || grad_output.numel() == 0) return gx;
  Tensor go = contiguous(grad_output, MemoryFormat::Contiguous);
  g.build_windows();
  int64_t planes = 1;
  for (int64_t i = 0; i < self.dim() - n; ++i) planes *= self.size(i);
  EMBER_DISPATCH_NO_BOOL(self.dtype(), name,
                         [&] { avg_backward_kernel<scalar_t>(g, planes, gx.data<scalar_t>(), go.data<scalar_t>()); });
  return gx;
}

}  // namespace

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_forward(
      self, 2,
      avg_geometry(self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, "avg_pool2d"),
      "avg_pool2d");
}

Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_forward(
      self, 3,
      avg_geometry(self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, "avg_pool3d"),
      "avg_pool3d");
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_backward(grad_output, self, 2,
                      avg_geometry(self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                   divisor_override, "avg_pool2d_backward"),
                      "avg_pool2d_backward");
}

Tensor avg_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_backward(grad_output, self, 3,
                      avg_geometry(self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                   divisor_override, "avg_pool3d_backward"),
                      "avg_pool3d_backward");
}

namespace {
// aten's composite adaptive_avg_pool{2,3}d: output_size checked, and an all-ones output is a
// mean over the pooled dims (no rank or non-empty checks), else the pooling kernel.
Tensor adaptive_avg_nd(const Tensor& self, int n, IntArrayRef output_size, const char* name) {
  EMBER_CHECK(output_size.size() == static_cast<size_t>(n), name, ": output_size must be ", n);
  bool ones = true, nonneg = true;
  for (int64_t v : output_size) {
    ones = ones && v == 1;
    nonneg = nonneg && v >= 0;
  }
  if (!nonneg) {
    std::string got;
    for (size_t i = 0; i < output_size.size(); ++i)
      got += (i ? (i == 1 ? ", " : ",") : "") + std::to_string(output_size[i]);
    fail(ErrorKind::Runtime, name, ": elements of output_size must be greater than or equal to 0 but received {", got,
         "}");
  }
  if (ones) {
    const int64_t dims3[] = {-1, -2, -3};
    return mean(self, IntArrayRef(dims3, static_cast<size_t>(n)), true, std::nullopt);
  }
  return avg_forward(self, n, adaptive_geometry(self, n, output_size, name), name);
}
}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_nd(self, 2, output_size, "adaptive_avg_pool2d");
}

Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_nd(self, 3, output_size, "adaptive_avg_pool3d");
}

namespace {
// The adaptive backward recovers output_size from grad_output's trailing dims.
Tensor adaptive_avg_backward(const Tensor& grad_output, const Tensor& self, int n, const char* name) {
  for (int64_t i = 1; i < grad_output.dim(); ++i)
    EMBER_CHECK(grad_output.size(i) > 0, name,
                "(): Expected grad_output to have non-zero size for non-batch dimensions, but grad_output has sizes ",
                shape_str(grad_output.sizes()), " with dimension ", i, " being empty");
  // aten's 2-d backward checks the gradient's rank; the 3-d one wants the gradient of the
  // input's rank, then reads the input's last four sizes (an IndexError when missing).
  if (n == 2) {
    EMBER_CHECK(grad_output.dim() == 3 || grad_output.dim() == 4, name,
                "_out_cpu_template: Expected 3D or 4D tensor, but got ", shape_str(grad_output.sizes()));
  } else {
    EMBER_CHECK(grad_output.dim() == self.dim(), name, "_out_cpu_template: Expected dimensions ", self.dim(),
                " for `gradOutput_` but got dimensions ", grad_output.dim());
    for (int64_t d = -4; d < 0; ++d) (void)self.size(d);
  }
  EMBER_CHECK(grad_output.dim() == self.dim(), name, ": grad_output and self must have the same rank");
  // aten checks the dtypes next, then pools: nothing to do for an empty input. The 3-d backward
  // dispatches on the input's dtype (empty or not), then reads the gradient as that type.
  if (n == 3) {
    if (!is_floating(self.dtype())) dtype_not_implemented("adaptive_avg_pool3d_backward_cpu", self.dtype());
    EMBER_CHECK(grad_output.dtype() == self.dtype(), "expected scalar type ", legacy_name(self.dtype()), " but found ",
                legacy_name(grad_output.dtype()));
  }
  EMBER_CHECK(grad_output.dtype() == self.dtype(), name, "_out_cpu_template: Expected dtype ",
              c_type_name(self.dtype()), " for `grad_output` but got dtype ", c_type_name(grad_output.dtype()));
  // A gradient of another batch or channel count: torch_known_wrong
  // "pool-backward-batch-mismatch", also when the input is empty.
  for (int64_t d = 0; d < self.dim() - n; ++d)
    EMBER_CHECK(grad_output.size(d) == self.size(d), name, ": grad_output has size ", grad_output.size(d), " in dim ",
                d, ", the input ", self.size(d));
  if (self.numel() == 0) return zeros(self.sizes(), self.dtype(), std::nullopt);
  DimVector osz;
  for (int i = 0; i < n; ++i) osz.push_back(grad_output.size(grad_output.dim() - n + i));
  return avg_backward(grad_output, self, n, adaptive_geometry(self, n, osz, name), name);
}
}  // namespace

Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_backward(grad_output, self, 2, "adaptive_avg_pool2d_backward");
}

Tensor _adaptive_avg_pool3d_backward(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_backward(grad_output, self, 3, "adaptive_avg_pool3d_backward");
}

}  // namespace ember
