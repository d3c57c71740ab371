// Max and average pooling on the GPU, and the plane scatters of max unpooling / max pooling's
// backward, mirroring the CPU kernels (kernels/cpu/pool): one thread per output element, each
// window read in the CPU's (d, h, w) order, so sums round as they do there. The windows the op
// builds on the host (pool::Span, pool::Win) travel in the launch's parameters (uploaded once per
// call when too many: kernels/cuda/inline_array.cuh). Average pooling's
// backward is a gather: each input element sums, in output order, the outputs whose windows hold
// it (a contiguous range per dim, found on the host), so it needs no atomics.
#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cuda/inline_array.cuh"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/cuda/pool_kernels.h"

namespace ember::cuda {

namespace {

using pool::Span;
using pool::Win;

constexpr int kBlock = 256;
// Windows in a launch's parameters (24 bytes each; the parameters stay under 4 KiB): 3 dims of
// 32 outputs, and avg_pool's backward's coverage (two values per input position).
constexpr int kInlineWins = 96, kInlineCover = 128;
using SpanTable = InlineArray<Span, kInlineWins>;

struct Dims {
  int64_t in[3], out[3];
};

template <class T>
__device__ inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  return false;
}

// sp: the spans of dims 0, 1, 2 one after another (out[0], out[1], out[2] of them).
template <class T>
__global__ void max_kernel(const T* x, int64_t planes, Dims dm, const SpanTable sp, T* y, int64_t* ind) {
  using A = opmath_t<T>;
  const int64_t in_plane = dm.in[0] * dm.in[1] * dm.in[2], out_plane = dm.out[0] * dm.out[1] * dm.out[2];
  const int64_t o1 = dm.out[0], o2 = o1 + dm.out[1];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < planes * out_plane;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = i / out_plane, o = i % out_plane;
    const int64_t ow = o % dm.out[2], oh = (o / dm.out[2]) % dm.out[1], od = o / (dm.out[1] * dm.out[2]);
    const Span sd = sp[od], sh = sp[o1 + oh], sw = sp[o2 + ow];
    const T* xb = x + b * in_plane;
    int64_t best = (sd.start * dm.in[1] + sh.start) * dm.in[2] + sw.start;
    A mx =
        std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::lowest();
    for (int64_t id = sd.start; id < sd.end; id += sd.step)
      for (int64_t ih = sh.start; ih < sh.end; ih += sh.step) {
        const int64_t row = (id * dm.in[1] + ih) * dm.in[2];
        for (int64_t iw = sw.start; iw < sw.end; iw += sw.step) {
          const A v = static_cast<A>(xb[row + iw]);
          if (v > mx || is_nan(v)) {  // NaN wins a window (PyTorch's rule), so it propagates
            mx = v;
            best = row + iw;
          }
        }
      }
    y[i] = static_cast<T>(mx);
    ind[i] = best;
  }
}

// AvgGeometry as a kernel argument: the windows of dims 0, 1, 2 one after another (win(d, o)).
struct AvgArgs {
  Dims dm;
  InlineArray<Win, kInlineWins> wins;
  int64_t divisor_override;
  bool has_override, count_include_pad, adaptive, tiles;
  __device__ __forceinline__ Win win(int d, int64_t o) const {
    return wins[d == 0 ? o : d == 1 ? dm.out[0] + o : dm.out[0] + dm.out[1] + o];
  }
};

template <class scalar_t>
using avg_acc_t = std::conditional_t<std::is_integral_v<scalar_t>, int64_t, opmath_t<scalar_t>>;

// aten's `x / k` for an int64 k computed in T (the CPU kernel's div_int)
template <class T>
__device__ inline T div_int(T x, int64_t k) {
  return static_cast<T>(x / static_cast<T>(k));
}

__device__ inline int64_t divisor(const AvgArgs& a, const Win& d, const Win& h, const Win& w) {
  if (a.has_override) return a.divisor_override;
  if (a.count_include_pad) return d.padded * h.padded * w.padded;
  return (d.hi - d.lo) * (h.hi - h.lo) * (w.hi - w.lo);
}

template <class T, class Acc>
__global__ void avg_forward_kernel(AvgArgs a, int64_t planes, const T* x, T* y) {
  const Dims& dm = a.dm;
  const int64_t in_plane = dm.in[0] * dm.in[1] * dm.in[2], out_plane = dm.out[0] * dm.out[1] * dm.out[2];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < planes * out_plane;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = i / out_plane, o = i % out_plane;
    const int64_t ow = o % dm.out[2], oh = (o / dm.out[2]) % dm.out[1], od = o / (dm.out[1] * dm.out[2]);
    const Win wd = a.win(0, od), wh = a.win(1, oh), ww = a.win(2, ow);
    if (wd.lo >= wd.hi || wh.lo >= wh.hi || ww.lo >= ww.hi) {
      y[i] = T(0);
      continue;
    }
    const T* xb = x + b * in_plane;
    Acc sum = Acc(0);
    for (int64_t id = wd.lo; id < wd.hi; ++id)
      for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
        const T* row = xb + (id * dm.in[1] + ih) * dm.in[2];
        for (int64_t iw = ww.lo; iw < ww.hi; ++iw) sum = static_cast<Acc>(sum + static_cast<Acc>(row[iw]));
      }
    if (a.adaptive)  // aten: sum / kd / kh / kw
      y[i] = static_cast<T>(div_int(div_int(div_int(sum, wd.hi - wd.lo), wh.hi - wh.lo), ww.hi - ww.lo));
    else y[i] = static_cast<T>(div_int(sum, divisor(a, wd, wh, ww)));
  }
}

// cov: per dim, for each input position, the range [first, last) of outputs whose windows hold
// it (dims 0, 1, 2 one after another, 2 * in[d] values each).
using CoverTable = InlineArray<int64_t, kInlineCover>;
static_assert(sizeof(AvgArgs) + sizeof(CoverTable) + 64 <= 4096, "avg_pool's backward parameters fit in 4 KiB");
template <class T>
__global__ void avg_backward_kernel(AvgArgs a, int64_t planes, T* x, const T* y, const CoverTable cov) {
  const Dims& dm = a.dm;
  const int64_t in_plane = dm.in[0] * dm.in[1] * dm.in[2], out_plane = dm.out[0] * dm.out[1] * dm.out[2];
  const int64_t c1 = 2 * dm.in[0], c2 = c1 + 2 * dm.in[1];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < planes * in_plane;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = i / in_plane, e = i % in_plane;
    const int64_t iw = e % dm.in[2], ih = (e / dm.in[2]) % dm.in[1], id = e / (dm.in[1] * dm.in[2]);
    const T* yb = y + b * out_plane;
    T acc = T(0);
    for (int64_t od = cov[2 * id], od_end = cov[2 * id + 1]; od < od_end; ++od) {
      const Win wd = a.win(0, od);
      for (int64_t oh = cov[c1 + 2 * ih], oh_end = cov[c1 + 2 * ih + 1]; oh < oh_end; ++oh) {
        const Win wh = a.win(1, oh);
        for (int64_t ow = cov[c2 + 2 * iw], ow_end = cov[c2 + 2 * iw + 1]; ow < ow_end; ++ow) {
          const Win ww = a.win(2, ow);
          const T g = yb[(od * dm.out[1] + oh) * dm.out[2] + ow];
          const T v = a.adaptive ? div_int(div_int(div_int(g, wd.hi - wd.lo), wh.hi - wh.lo), ww.hi - ww.lo)
                                 : div_int(g, divisor(a, wd, wh, ww));
          acc = a.tiles ? v : static_cast<T>(acc + v);  // tiles: the one window, written as is
        }
      }
    }
    x[i] = acc;
  }
}

template <class T>
__global__ void scatter_kernel(const T* src, const int64_t* idx, int64_t planes, int64_t m, T* out,
                               int64_t plane_size) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < planes * m; i += int64_t(gridDim.x) * blockDim.x)
    out[(i / m) * plane_size + idx[i]] = src[i];
}

// float / double: atomic adds, one thread per value (the order of a position's terms varies)
template <class T>
__global__ void scatter_add_atomic(const T* src, const int64_t* idx, int64_t planes, int64_t m, T* out,
                                   int64_t plane_size) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < planes * m; i += int64_t(gridDim.x) * blockDim.x)
    atomicAdd(out + (i / m) * plane_size + idx[i], src[i]);
}

// the half types: one thread per plane, its values in order (as the CPU loop)
template <class T>
__global__ void scatter_add_planes(const T* src, const int64_t* idx, int64_t planes, int64_t m, T* out,
                                   int64_t plane_size) {
  for (int64_t b = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; b < planes; b += int64_t(gridDim.x) * blockDim.x) {
    T* ob = out + b * plane_size;
    for (int64_t i = b * m; i < (b + 1) * m; ++i)
      ob[idx[i]] = static_cast<T>(static_cast<opmath_t<T>>(ob[idx[i]]) + static_cast<opmath_t<T>>(src[i]));
  }
}

}  // namespace

void max_pool_windows(ScalarType dt, const char* name, const void* x, int64_t planes, const int64_t* in,
                      const int64_t* out, const Span* const* spans, void* y, int64_t* ind) {
  Dims dm{{in[0], in[1], in[2]}, {out[0], out[1], out[2]}};
  const int64_t total = planes * out[0] * out[1] * out[2];
  if (total == 0) return;
  const int device = device_of(ind, name);
  const LaunchDevice on(device);
  std::vector<Span> sp;
  for (int d = 0; d < 3; ++d) sp.insert(sp.end(), spans[d], spans[d] + out[d]);
  const InlineOrUploaded<Span, kInlineWins> spd(sp, device);
  EMBER_DISPATCH_NO_BOOL(dt, name, [&] {
    max_kernel<scalar_t><<<grid_for(total), kBlock, 0, current_stream(-1)>>>(
        static_cast<const scalar_t*>(x), planes, dm, spd.arg(), static_cast<scalar_t*>(y), ind);
  });
  check_launch("max_pool kernel");
}

bool max_pool_2x2_applies(int64_t, int64_t, int64_t, int64_t) { return false; }  // the general kernel serves

namespace {

// The windows (for a.wins) and, for the backward, each input position's covering outputs.
struct AvgUpload {
  AvgArgs a{};
  std::vector<Win> wins;
  std::vector<int64_t> cov;

  explicit AvgUpload(const pool::AvgGeometry& g, bool coverage) {
    for (int d = 0; d < 3; ++d) {
      a.dm.in[d] = g.in[d];
      a.dm.out[d] = g.out[d];
      wins.insert(wins.end(), g.wins[d].begin(), g.wins[d].end());
      if (!coverage) continue;
      // windows move forward with o (lo and hi never decrease), so those holding i are a range
      std::vector<int64_t> c(static_cast<size_t>(2 * g.in[d]));
      for (int64_t i = 0; i < g.in[d]; ++i) {
        c[2 * i] = g.out[d];
        c[2 * i + 1] = 0;
      }
      for (int64_t o = 0; o < g.out[d]; ++o)
        for (int64_t i = g.wins[d][o].lo; i < g.wins[d][o].hi; ++i) {
          c[2 * i] = std::min(c[2 * i], o);
          c[2 * i + 1] = std::max(c[2 * i + 1], o + 1);
        }
      cov.insert(cov.end(), c.begin(), c.end());
    }
    a.has_override = g.divisor_override.has_value();
    a.divisor_override = g.divisor_override.value_or(1);
    a.count_include_pad = g.count_include_pad;
    a.adaptive = g.adaptive;
    a.tiles = g.tiles;
  }
};

}  // namespace

void avg_pool_forward(const pool::AvgGeometry& g, ScalarType dt, const char* name, int64_t planes, const void* x,
                      void* y) {
  const int64_t total = planes * g.out[0] * g.out[1] * g.out[2];
  if (total == 0) return;
  const int device = device_of(y, name);
  const LaunchDevice on(device);
  AvgUpload u(g, false);
  const InlineOrUploaded<Win, kInlineWins> wd(u.wins, device);
  u.a.wins = wd.arg();
  EMBER_DISPATCH_NO_BOOL(dt, name, [&] {
    const scalar_t* xp = static_cast<const scalar_t*>(x);
    scalar_t* yp = static_cast<scalar_t*>(y);
    // aten's adaptive_avg_pool3d frame sums and divides in scalar_t
    if (g.adaptive && g.sum_in_input_type)
      avg_forward_kernel<scalar_t, scalar_t><<<grid_for(total), kBlock, 0, current_stream(-1)>>>(u.a, planes, xp, yp);
    else
      avg_forward_kernel<scalar_t, avg_acc_t<scalar_t>>
          <<<grid_for(total), kBlock, 0, current_stream(-1)>>>(u.a, planes, xp, yp);
  });
  check_launch("avg_pool kernel");
}

void avg_pool_backward(const pool::AvgGeometry& g, ScalarType dt, const char* name, int64_t planes, void* x,
                       const void* y) {
  const int64_t total = planes * g.in[0] * g.in[1] * g.in[2];
  if (total == 0) return;
  const int device = device_of(x, name);
  const LaunchDevice on(device);
  AvgUpload u(g, true);
  const InlineOrUploaded<Win, kInlineWins> wd(u.wins, device);
  const InlineOrUploaded<int64_t, kInlineCover> cd(u.cov, device);
  u.a.wins = wd.arg();
  EMBER_DISPATCH_NO_BOOL(dt, name, [&] {
    avg_backward_kernel<scalar_t><<<grid_for(total), kBlock, 0, current_stream(-1)>>>(
        u.a, planes, static_cast<scalar_t*>(x), static_cast<const scalar_t*>(y), cd.arg());
  });
  check_launch("avg_pool backward kernel");
}

void unpool_scatter(ScalarType dt, const char* name, const void* src, const int64_t* idx, int64_t planes, int64_t m,
                    void* out, int64_t plane_size) {
  if (planes * m == 0) return;
  const LaunchDevice on(device_of(out, name));
  EMBER_DISPATCH_ALL(dt, name, [&] {
    scatter_kernel<scalar_t><<<grid_for(planes * m), kBlock, 0, current_stream(-1)>>>(
        static_cast<const scalar_t*>(src), idx, planes, m, static_cast<scalar_t*>(out), plane_size);
  });
  check_launch("max_unpool kernel");
}

void unpool_scatter_add(ScalarType dt, const void* src, const int64_t* idx, int64_t planes, int64_t m, void* out,
                        int64_t plane_size) {
  if (planes * m == 0) return;
  const LaunchDevice on(device_of(out, "max_pool_backward"));
  EMBER_DISPATCH_FLOAT(dt, "max_pool_backward", [&] {
    const scalar_t* sp = static_cast<const scalar_t*>(src);
    scalar_t* op = static_cast<scalar_t*>(out);
    if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>)
      scatter_add_atomic<scalar_t>
          <<<grid_for(planes * m), kBlock, 0, current_stream(-1)>>>(sp, idx, planes, m, op, plane_size);
    else
      scatter_add_planes<scalar_t>
          <<<grid_for(planes), kBlock, 0, current_stream(-1)>>>(sp, idx, planes, m, op, plane_size);
  });
  check_launch("max_pool backward kernel");
}

}  // namespace ember::cuda
