// Average pooling's forward and backward passes over contiguous planes (kernels/backend.h,
// PoolKernels::avg_forward / avg_backward); the op bodies are ops/nn/nn_pool_avg.cpp.
#include "kernels/cpu/pool/avg_pool.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/cpu_capability.h"
#include "core/parallel.h"

namespace ember::pool {

namespace {

// Grain (planes per task) so a task holds about kGrainSize elements.
int64_t plane_grain(int64_t plane_elems) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(plane_elems, 1));
}

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
  parallel_for(0, planes, std::max<int64_t>(kLanes, plane_grain(in_plane + out_plane)),
               [&](int64_t b0, int64_t b1) { run(g, xp, yp, b0, b1, in); });
}

// Backward: x[window] += y[o] / divisor (x is the zero-initialised grad_input, y the
// grad_output); the quotient is taken in scalar_t as aten's grad_delta is.
template <class scalar_t>
void avg_backward_kernel(const AvgGeometry& g, int64_t planes, scalar_t* xp, const scalar_t* yp) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  GilRelease nogil;  // also when parallel_for runs inline (one thread, small input)
  parallel_for(0, planes, plane_grain(in_plane + out_plane), [&](int64_t b0, int64_t b1) {
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

}  // namespace

void avg_forward(const AvgGeometry& g, ScalarType dt, const char* name, int64_t planes, const void* x, void* y) {
  EMBER_DISPATCH_NO_BOOL(dt, name, [&] {
    const scalar_t* xp = static_cast<const scalar_t*>(x);
    scalar_t* yp = static_cast<scalar_t*>(y);
    // aten's adaptive_avg_pool3d frame sums and divides in scalar_t
    if (g.adaptive && g.sum_in_input_type) avg_forward_kernel<scalar_t, scalar_t>(g, planes, xp, yp);
    else avg_forward_kernel<scalar_t, avg_acc_t<scalar_t>>(g, planes, xp, yp);
  });
}

void avg_backward(const AvgGeometry& g, ScalarType dt, const char* name, int64_t planes, void* x, const void* y) {
  EMBER_DISPATCH_NO_BOOL(dt, name, [&] {
    avg_backward_kernel<scalar_t>(g, planes, static_cast<scalar_t*>(x), static_cast<const scalar_t*>(y));
  });
}

}  // namespace ember::pool
