// Layer, batch and group norm on the GPU, mirroring the CPU kernels (kernels/cpu/norm): the same
// statistics (double sums; two passes, so no cancellation), the same op-math steps and roundings.
// A row (layer norm), channel (batch norm) or group (group norm) takes a block of 256 threads whose
// partial sums meet in a shared-memory tree; the parameter gradients' column sums of layer norm go
// by row chunks, then one pass over the chunks. The op bodies (ops/nn/nn_layer_norm.cpp,
// nn_norm.cpp) hand the parameters and statistics over as device arrays: nothing waits for the device.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/cuda/device_scratch.h"
#include "kernels/cuda/norm_kernels.h"
#include "kernels/cuda/pointwise_launch.cuh"

namespace ember::cuda {

namespace {

using norms::ChannelView;
using norms::NCS;

constexpr int kBlock = 256;

// The block's sum (Max: maximum) of v; every thread gets it. All threads must call it.
template <bool Max = false>
__device__ double block_reduce(double v, double* sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kBlock / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sh[threadIdx.x] = Max ? fmax(sh[threadIdx.x], sh[threadIdx.x + s]) : sh[threadIdx.x] + sh[threadIdx.x + s];
    __syncthreads();
  }
  const double r = sh[0];
  __syncthreads();  // sh is reused by the next reduction
  return r;
}

int device_index(const Tensor& t) { return t.device().index < 0 ? 0 : t.device().index; }

// ---------------------------------------------------------------- layer norm

// mean and 1 / sqrt(var + eps) of one row of n, as the CPU's row_stats: the mean in double,
// rounded to A; a row whose squared deviations overflow is rescaled by the exponent of its
// largest |x| (the CPU's overflowed_rstd), so rstd stays the finite value it stands for.
template <class T>
__device__ void row_stats(const T* x, int64_t n, double eps, opmath_t<T>& mu, opmath_t<T>& rs, double* sh) {
  using A = opmath_t<T>;
  double s = 0;
  for (int64_t j = threadIdx.x; j < n; j += kBlock) s += static_cast<double>(static_cast<A>(x[j]));
  const A m = static_cast<A>(block_reduce(s, sh) / static_cast<double>(n));
  double q = 0;
  for (int64_t j = threadIdx.x; j < n; j += kBlock) {
    const A d = static_cast<A>(x[j]) - m;
    q += static_cast<double>(d * d);
  }
  const double var = block_reduce(q, sh) / static_cast<double>(n);
  double r;
  if (isinf(var) && isfinite(static_cast<double>(m))) {
    double big = fabs(static_cast<double>(m));
    for (int64_t j = threadIdx.x; j < n; j += kBlock) big = fmax(big, fabs(static_cast<double>(static_cast<A>(x[j]))));
    big = block_reduce<true>(big, sh);
    int e = 0;
    frexp(big, &e);
    const double ms = ldexp(static_cast<double>(m), -e);
    double q2 = 0;
    for (int64_t j = threadIdx.x; j < n; j += kBlock) {
      const double d = ldexp(static_cast<double>(static_cast<A>(x[j])), -e) - ms;
      q2 += d * d;
    }
    q2 = block_reduce(q2, sh);
    r = ldexp(1.0 / sqrt(q2 / static_cast<double>(n) + ldexp(eps, -2 * e)), -e);
  } else {
    r = 1.0 / sqrt(var + eps);
  }
  mu = m;
  rs = static_cast<A>(r);
}

template <class T>
__global__ void layer_forward_kernel(const T* x, T* y, int64_t m, int64_t n, double eps, const opmath_t<T>* w,
                                     const opmath_t<T>* b) {
  using A = opmath_t<T>;
  __shared__ double sh[kBlock];
  for (int64_t r = blockIdx.x; r < m; r += gridDim.x) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    A mu, rs;
    row_stats(xr, n, eps, mu, rs, sh);
    for (int64_t j = threadIdx.x; j < n; j += kBlock)
      yr[j] = static_cast<T>((static_cast<A>(xr[j]) - mu) * rs * w[j] + b[j]);
  }
}

// Per row: its statistics into mean / rstd (for the column sums) and, when dx, d(input) =
// rstd * (g w - mean(g w) - xhat * mean(g w xhat)).
template <class T>
__global__ void layer_backward_rows(const T* x, const T* g, T* dx, int64_t m, int64_t n, double eps,
                                    const opmath_t<T>* w, opmath_t<T>* mean, opmath_t<T>* rstd) {
  using A = opmath_t<T>;
  __shared__ double sh[kBlock];
  const A inv_n = A(1) / static_cast<A>(n);
  for (int64_t r = blockIdx.x; r < m; r += gridDim.x) {
    const T *xr = x + r * n, *gr = g + r * n;
    A mu, rs;
    row_stats(xr, n, eps, mu, rs, sh);
    if (threadIdx.x == 0) {
      mean[r] = mu;
      rstd[r] = rs;
    }
    if (!dx) continue;
    double s1 = 0, s2 = 0;
    for (int64_t j = threadIdx.x; j < n; j += kBlock) {
      const A gw = static_cast<A>(gr[j]) * w[j];
      s1 += static_cast<double>(gw);
      s2 += static_cast<double>(gw * (static_cast<A>(xr[j]) - mu) * rs);
    }
    const A c1 = static_cast<A>(block_reduce(s1, sh)) * inv_n;
    const A c2 = static_cast<A>(block_reduce(s2, sh)) * inv_n;
    T* dxr = dx + r * n;
    for (int64_t j = threadIdx.x; j < n; j += kBlock) {
      const A xh = (static_cast<A>(xr[j]) - mu) * rs;
      dxr[j] = static_cast<T>(rs * (static_cast<A>(gr[j]) * w[j] - c1 - xh * c2));
    }
  }
}

// Column sums of g * xhat (pw) and g (pb) over the rows of chunk blockIdx.y.
template <class T>
__global__ void layer_column_partials(const T* x, const T* g, const opmath_t<T>* mean, const opmath_t<T>* rstd,
                                      int64_t m, int64_t n, int64_t rows_per, double* pw, double* pb) {
  using A = opmath_t<T>;
  const int64_t chunk = blockIdx.y, r0 = chunk * rows_per, r1 = r0 + rows_per < m ? r0 + rows_per : m;
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < n; j += int64_t(gridDim.x) * blockDim.x) {
    double sw = 0, sb = 0;
    for (int64_t r = r0; r < r1; ++r) {
      const A gv = static_cast<A>(g[r * n + j]);
      sb += static_cast<double>(gv);
      sw += static_cast<double>(gv * (static_cast<A>(x[r * n + j]) - mean[r]) * rstd[r]);
    }
    pw[chunk * n + j] = sw;
    pb[chunk * n + j] = sb;
  }
}

template <class A>
__global__ void sum_chunks(const double* pw, const double* pb, int64_t chunks, int64_t n, A* dw, A* db) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < n; j += int64_t(gridDim.x) * blockDim.x) {
    double sw = 0, sb = 0;
    for (int64_t c = 0; c < chunks; ++c) {
      sw += pw[c * n + j];
      sb += pb[c * n + j];
    }
    if (dw) dw[j] = static_cast<A>(sw);
    db[j] = static_cast<A>(sb);
  }
}

// ---------------------------------------------------------------- batch norm

// aten's InvStd for batch statistics (kernels/cpu/norm/batch_norm.cpp's inv_std)
__host__ __device__ inline double inv_std(double var, double eps, bool batch_stats) {
  return batch_stats && var == 0 && eps == 0 ? 0.0 : 1.0 / sqrt(var + eps);
}

// The element of channel c at position i of its n * s values.
__device__ inline int64_t channel_at(const NCS& d, int64_t c, int64_t i) {
  return ((i / d.s) * d.c + c) * d.s + i % d.s;
}

// A channel is split over several blocks (one block per channel left most of the GPU idle for
// a few dozen channels): each block sums its slice of the channel, in double, about a shift K near
// the channel's mean (its first value, or the running mean): S1 = sum (x - K), S2 = sum (x - K)^2,
// Sg = sum g, Sgx = sum g (x - K). Then one thread per channel adds the slices in order.
constexpr int kSums = 4;

struct ChannelSplit {
  int64_t parts, chunk;  // blocks per channel, values per block
};

inline ChannelSplit split_channels(const NCS& d) {
  const int64_t cnt = d.n * d.s;
  const int64_t want = std::max<int64_t>(1, (512 + d.c - 1) / d.c);                  // ~4 blocks per SM in all
  const int64_t most = std::max<int64_t>(1, (cnt + 4 * kBlock - 1) / (4 * kBlock));  // >= 4 values per thread
  const int64_t parts = std::min<int64_t>(std::min(want, most), 65535);
  return {parts, (cnt + parts - 1) / parts};
}

// A channel's shift: the given one (the running mean), else its first value.
template <class T>
__device__ double channel_shift(const T* x, const NCS& d, const double* shift, int64_t c) {
  return shift ? shift[c] : d.n * d.s ? static_cast<double>(x[channel_at(d, c, 0)]) : 0.0;
}

// grid (parts, channels, at most 65535 a launch): the slice sums of x (and, with g, of the
// gradient), kSums doubles per block and channel.
template <class T>
__global__ void channel_slice_sums(const T* x, const T* g, NCS d, ChannelSplit sp, const double* shift, double* sums) {
  __shared__ double sh[kBlock];
  const int64_t p = blockIdx.x, cnt = d.n * d.s;
  for (int64_t c = blockIdx.y; c < d.c; c += gridDim.y) {
    const double k = channel_shift(x, d, shift, c);
    const int64_t lo = p * sp.chunk, hi = lo + sp.chunk < cnt ? lo + sp.chunk : cnt;
    double s1 = 0, s2 = 0, sg = 0, sgx = 0;
    for (int64_t i = lo + threadIdx.x; i < hi; i += kBlock) {
      const int64_t at = channel_at(d, c, i);
      const double v = static_cast<double>(x[at]) - k;
      s1 += v;
      s2 += v * v;
      if (g) {
        const double gv = static_cast<double>(g[at]);
        sg += gv;
        sgx += gv * v;
      }
    }
    double* out = sums + (c * sp.parts + p) * kSums;
    const double t1 = block_reduce(s1, sh), t2 = block_reduce(s2, sh);
    const double t3 = g ? block_reduce(sg, sh) : 0.0, t4 = g ? block_reduce(sgx, sh) : 0.0;
    if (threadIdx.x == 0) {
      out[0] = t1;
      out[1] = t2;
      out[2] = t3;
      out[3] = t4;
    }
  }
}

inline dim3 slice_grid(const NCS& d, const ChannelSplit& sp) {
  return dim3(unsigned(sp.parts), unsigned(std::min<int64_t>(d.c, 65535)));
}

// A channel's slices added in slice order: its batch mean and biased variance (0 for an empty
// batch), sum g, and sum g (x - k) about its shift k (as channel_slice_sums took it).
struct ChannelTotals {
  double k, mean, var, sg, sgk;
};
template <class T>
__device__ ChannelTotals channel_totals(const T* x, const NCS& d, const ChannelSplit& sp, const double* shift,
                                        const double* sums, int64_t c) {
  double t[kSums] = {0, 0, 0, 0};
  for (int64_t p = 0; p < sp.parts; ++p)
    for (int j = 0; j < kSums; ++j) t[j] += sums[(c * sp.parts + p) * kSums + j];
  const double n = static_cast<double>(d.n * d.s), m1 = n ? t[0] / n : 0.0;  // the mean's offset from k
  const double k = channel_shift(x, d, shift, c);
  return {k, k + m1, n ? fmax(t[1] / n - m1 * m1, 0.0) : 0.0, t[2], t[3]};
}

// The batch's mean and biased variance per channel.
template <class T>
__global__ void batch_stats_finish(const T* x, NCS d, ChannelSplit sp, const double* sums, double* mean, double* var) {
  const int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (c >= d.c) return;
  const ChannelTotals t = channel_totals(x, d, sp, nullptr, sums, c);
  mean[c] = t.mean;
  var[c] = t.var;
}

// The CPU's bn_normalize, element by element, from c doubles each of mean and variance (the
// batch's or the running ones), weight and bias.
template <class T>
__global__ void batch_normalize_kernel(const T* x, T* y, NCS d, const double* mean, const double* var, ChannelView w,
                                       ChannelView b, double eps, bool batch_stats, bool centered, bool half_steps) {
  using A = opmath_t<T>;
  const int64_t total = d.n * d.c * d.s;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = (i / d.s) % d.c;
    const double rsv = inv_std(var[c], eps, batch_stats);
    if (centered) {
      const A mu = static_cast<A>(mean[c]), rs = static_cast<A>(rsv), wc = static_cast<A>(w[c]),
              bc = static_cast<A>(b[c]);
      if constexpr (!std::is_same_v<T, A>) {
        if (half_steps) {  // every step rounded to the half type, as aten's kernel in that type
          auto h = [](A v) { return static_cast<A>(static_cast<T>(v)); };
          y[i] = static_cast<T>(h(h(h(static_cast<A>(x[i]) - h(mu)) * h(rs)) * h(wc)) + h(bc));
          continue;
        }
      }
      y[i] = static_cast<T>((static_cast<A>(x[i]) - mu) * rs * wc + bc);
      continue;
    }
    // x * scale + shift in double, rounded once (the CPU's reason: no cancellation near the mean)
    const double scale = w[c] * rsv, shift = b[c] - mean[c] * scale;
    y[i] = static_cast<T>(static_cast<A>(static_cast<double>(x[i]) * scale + shift));
  }
}

// running = momentum * factor * batch + (1 - momentum) * running
template <class T>
__device__ __forceinline__ void update_running_at(T& r, double batch, double momentum, double factor) {
  r = T(momentum * batch * factor + (1 - momentum) * static_cast<double>(r));
}

// A running tensor whose channels share memory (stride 0) takes each channel's update in turn, as
// the CPU loop gives.
template <class T>
__global__ void update_running_kernel(T* p, int64_t st, const double* batch, int64_t channels, double momentum,
                                      double factor) {
  if (st == 0) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    for (int64_t i = 0; i < channels; ++i) update_running_at(p[0], batch[i], momentum, factor);
    return;
  }
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < channels; i += int64_t(gridDim.x) * blockDim.x) {
    update_running_at(p[i * st], batch[i], momentum, factor);
  }
}

// Both running statistics in one pass, each thread its channel's mean then variance (for tensors
// of one dtype, channels apart, not overlapping each other).
template <class T>
__global__ void update_running_pair(T* m, int64_t ms, const double* mean, T* v, int64_t vs, const double* var,
                                    int64_t channels, double momentum, double unbias) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < channels; i += int64_t(gridDim.x) * blockDim.x) {
    update_running_at(m[i * ms], mean[i], momentum, 1.0);
    update_running_at(v[i * vs], var[i], momentum, unbias);
  }
}

// Per channel, from the slice sums: d(bias), d(weight), and dx's coefficients (mu, 1 / std,
// w / std, mean g, mean g xhat) in coef, 5 doubles a channel. w: the weight; rm, rv: the running
// mean and variance (read without batch statistics); c doubles each.
template <class T>
__global__ void batch_backward_finish(const T* x, NCS d, ChannelSplit sp, const double* sums, bool batch_stats,
                                      double eps, ChannelView w, const double* rm, const double* rv, opmath_t<T>* dw,
                                      opmath_t<T>* db, double* coef) {
  using A = opmath_t<T>;
  const int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (c >= d.c) return;
  const int64_t cnt = d.n * d.s;
  const ChannelTotals t = channel_totals(x, d, sp, batch_stats ? nullptr : rm, sums, c);
  const double n = static_cast<double>(cnt);
  const double mean = batch_stats ? t.mean : rm[c], var = batch_stats ? t.var : rv[c];
  const double inv = inv_std(var, eps, batch_stats);
  const double sg = t.sg, sgx = (t.sgk - (mean - t.k) * t.sg) * inv;  // sum g (x - mean) / std
  db[c] = static_cast<A>(sg);
  if (dw) dw[c] = static_cast<A>(sgx);
  double* o = coef + c * 5;
  o[0] = mean;
  o[1] = inv;
  o[2] = w[c] * inv;
  o[3] = cnt ? sg / n : 0.0;
  o[4] = cnt ? sgx / n : 0.0;
}

// dx element by element from its channel's coefficients, in op-math as the CPU's.
template <class T>
__global__ void batch_backward_dx(const T* x, const T* g, T* dx, NCS d, bool batch_stats, const double* coef) {
  using A = opmath_t<T>;
  const int64_t total = d.n * d.c * d.s;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const double* o = coef + ((i / d.s) % d.c) * 5;
    const A wk = static_cast<A>(o[2]);
    if (!batch_stats) {
      dx[i] = static_cast<T>(static_cast<A>(g[i]) * wk);
      continue;
    }
    const A xh = (static_cast<A>(x[i]) - static_cast<A>(o[0])) * static_cast<A>(o[1]);
    dx[i] = static_cast<T>(wk * (static_cast<A>(g[i]) - static_cast<A>(o[3]) - xh * static_cast<A>(o[4])));
  }
}

// ---------------------------------------------------------------- group norm

// Mean and biased variance of len contiguous values, two passes in double.
template <class T>
__device__ void moments(const T* x, int64_t len, double& mean, double& var, double* sh) {
  double s = 0;
  for (int64_t i = threadIdx.x; i < len; i += kBlock) s += static_cast<double>(x[i]);
  mean = len ? block_reduce(s, sh) / static_cast<double>(len) : 0.0;
  double q = 0;
  for (int64_t i = threadIdx.x; i < len; i += kBlock) {
    const double v = static_cast<double>(x[i]) - mean;
    q += v * v;
  }
  var = len ? block_reduce(q, sh) / static_cast<double>(len) : 0.0;
}

// w, b: c doubles each; row r = sample * groups + group, len = per * s values.
template <class T>
__global__ void group_forward_kernel(const T* x, T* y, NCS d, int64_t groups, double eps, ChannelView w,
                                     ChannelView b) {
  using A = opmath_t<T>;
  __shared__ double sh[kBlock];
  const int64_t per = d.c / groups, len = per * d.s, rows = d.n * groups;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    double mu, var;
    moments(x + r * len, len, mu, var, sh);
    const double inv = 1.0 / sqrt(var + eps);
    const int64_t c0 = (r % groups) * per;
    for (int64_t j = threadIdx.x; j < len; j += kBlock) {
      const int64_t c = c0 + j / d.s;
      const double scale = w[c] * inv, shift = b[c] - mu * w[c] * inv;
      y[r * len + j] = T(static_cast<A>(static_cast<double>(x[r * len + j]) * scale + shift));
    }
  }
}

// Per group row: its statistics into mean / rstd and, when dx, d(input).
template <class T>
__global__ void group_backward_rows(const T* x, const T* g, T* dx, NCS d, int64_t groups, double eps, ChannelView w,
                                    double* mean, double* rstd) {
  using A = opmath_t<T>;
  __shared__ double sh[kBlock];
  const int64_t per = d.c / groups, len = per * d.s, rows = d.n * groups;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    double mu, var;
    moments(x + r * len, len, mu, var, sh);
    const double rsd = 1.0 / sqrt(var + eps);
    if (threadIdx.x == 0) {
      mean[r] = mu;
      rstd[r] = rsd;
    }
    if (!dx) continue;
    const int64_t c0 = (r % groups) * per;
    const A mu_a = static_cast<A>(mu), rs = static_cast<A>(rsd);
    double s1 = 0, s2 = 0;
    for (int64_t j = threadIdx.x; j < len; j += kBlock) {
      const int64_t i = r * len + j;
      const A dxh = static_cast<A>(g[i]) * static_cast<A>(w[c0 + j / d.s]);
      s1 += static_cast<double>(dxh);
      s2 += static_cast<double>(dxh * (static_cast<A>(x[i]) - mu_a) * rs);
    }
    const A inv_n = len ? A(1) / static_cast<A>(len) : A(0);
    const A m1 = static_cast<A>(block_reduce(s1, sh)) * inv_n, m2 = static_cast<A>(block_reduce(s2, sh)) * inv_n;
    for (int64_t j = threadIdx.x; j < len; j += kBlock) {
      const int64_t i = r * len + j;
      const A wc = static_cast<A>(w[c0 + j / d.s]);
      const A xh = (static_cast<A>(x[i]) - mu_a) * rs;
      dx[i] = T(rs * (static_cast<A>(g[i]) * wc - m1 - xh * m2));
    }
  }
}

// Per channel: d(bias) = sum g, d(weight) = sum g * xhat over the samples.
template <class T>
__global__ void group_param_grads(const T* x, const T* g, NCS d, int64_t groups, const double* mean, const double* rstd,
                                  opmath_t<T>* dw, opmath_t<T>* db) {
  using A = opmath_t<T>;
  __shared__ double sh[kBlock];
  const int64_t per = d.c / groups, cnt = d.n * d.s;
  for (int64_t c = blockIdx.x; c < d.c; c += gridDim.x) {
    double sw = 0, sb = 0;
    for (int64_t i = threadIdx.x; i < cnt; i += kBlock) {
      const int64_t n = i / d.s, k = channel_at(d, c, i);
      const int64_t r = n * groups + c / per;
      const A gv = static_cast<A>(g[k]);
      sb += static_cast<double>(gv);
      sw += static_cast<double>(gv * (static_cast<A>(x[k]) - static_cast<A>(mean[r])) * static_cast<A>(rstd[r]));
    }
    sb = block_reduce(sb, sh);
    sw = block_reduce(sw, sh);
    if (threadIdx.x == 0) {
      db[c] = static_cast<A>(sb);
      if (dw) dw[c] = static_cast<A>(sw);
    }
  }
}

}  // namespace

void layer_norm_forward(const Tensor& x, const Tensor& y, int64_t m, int64_t n, double eps, const void* w,
                        const void* b) {
  if (m == 0 || n == 0) return;
  const int device = device_index(x);
  const LaunchDevice on(device);
  EMBER_DISPATCH_FLOAT(x.dtype(), "LayerNormKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    layer_forward_kernel<scalar_t><<<capped_blocks(m), kBlock, 0, current_stream(-1)>>>(
        x.data<scalar_t>(), y.data<scalar_t>(), m, n, eps, static_cast<const A*>(w), static_cast<const A*>(b));
    check_launch("layer_norm kernel");
  });
}

void layer_norm_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                         int64_t m, int64_t n, double eps, const void* w) {
  if (n == 0) return;
  const int device = device_index(x);
  const LaunchDevice on(device);
  EMBER_DISPATCH_FLOAT(x.dtype(), "LayerNormBackwardKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    const int64_t rows_per = std::max<int64_t>(64, (m + 4095) / 4096);
    const int64_t chunks = std::max<int64_t>(1, (m + rows_per - 1) / rows_per);
    const Scratch stats(size_t(2 * std::max<int64_t>(m, 1)) * sizeof(A), device);
    const Scratch parts(size_t(2 * chunks * n) * sizeof(double), device);
    A *mean = stats.as<A>(), *rstd = mean + std::max<int64_t>(m, 1);
    double *pw = parts.as<double>(), *pb = pw + chunks * n;
    cudaStream_t s = current_stream(-1);
    if (m > 0) {
      layer_backward_rows<scalar_t><<<capped_blocks(m), kBlock, 0, s>>>(x.data<scalar_t>(), g.data<scalar_t>(),
                                                                        dx.data_or_null<scalar_t>(), m, n, eps,
                                                                        static_cast<const A*>(w), mean, rstd);
      check_launch("layer_norm backward kernel");
    }
    const dim3 grid(std::min<unsigned>(grid_for(n), 1024u), static_cast<unsigned>(chunks));
    layer_column_partials<scalar_t>
        <<<grid, kBlock, 0, s>>>(x.data<scalar_t>(), g.data<scalar_t>(), mean, rstd, m, n, rows_per, pw, pb);
    sum_chunks<A><<<grid_for(n), kBlock, 0, s>>>(pw, pb, chunks, n, dw.data_or_null<A>(), db.data<A>());
    check_launch("layer_norm backward kernel");
  });
}

void batch_norm_forward(const Tensor& x, const Tensor& y, const norms::BatchForward& a) {
  const NCS& d = a.d;
  if (d.c == 0) return;
  const int device = device_index(x);
  const LaunchDevice on(device);
  EMBER_DISPATCH_FLOAT(x.dtype(), "batch_norm", [&] {
    cudaStream_t s = current_stream(-1);
    if (a.batch_stats && d.n * d.s > 0) {  // into the op body's device arrays (the running update reads them)
      const ChannelSplit sp = split_channels(d);
      const Scratch sums(size_t(d.c * sp.parts * kSums) * sizeof(double), device);
      channel_slice_sums<scalar_t>
          <<<slice_grid(d, sp), kBlock, 0, s>>>(x.data<scalar_t>(), nullptr, d, sp, nullptr, sums.as<double>());
      batch_stats_finish<scalar_t>
          <<<grid_for(d.c), kBlock, 0, s>>>(x.data<scalar_t>(), d, sp, sums.as<double>(), a.mean, a.var);
      check_launch("batch_norm statistics kernel");
    }
    const int64_t total = d.n * d.c * d.s;
    if (total == 0) return;
    batch_normalize_kernel<scalar_t><<<grid_for(total), kBlock, 0, s>>>(x.data<scalar_t>(), y.data<scalar_t>(), d,
                                                                        a.mean, a.var, a.w, a.b, a.eps, a.batch_stats,
                                                                        a.centered, a.half_steps);
    check_launch("batch_norm kernel");
  });
}

namespace {

void update_one(const Tensor& running, const double* batch, int64_t channels, double momentum, double factor) {
  EMBER_DISPATCH_FLOAT(running.dtype(), "batch_norm", [&] {
    const int64_t st = running.dim() ? running.strides()[0] : 1;
    update_running_kernel<scalar_t><<<grid_for(channels), kBlock, 0, current_stream(-1)>>>(
        running.data<scalar_t>(), st, batch, channels, momentum, factor);
  });
}

// The bytes [begin, end) a 1-d running statistic spans.
std::pair<uintptr_t, uintptr_t> span_of(const Tensor& t, int64_t channels) {
  const auto begin = reinterpret_cast<uintptr_t>(t.raw());
  const int64_t st = t.dim() ? t.strides()[0] : 1;
  return {begin, begin + static_cast<uintptr_t>(((channels - 1) * st + 1) * static_cast<int64_t>(t.itemsize()))};
}

}  // namespace

void batch_norm_update_running(const Tensor& running_mean, const double* mean, const Tensor& running_var,
                               const double* var, int64_t channels, double momentum, double unbias) {
  if (channels == 0) return;
  const LaunchDevice on(device_index(running_mean));
  const int64_t ms = running_mean.dim() ? running_mean.strides()[0] : 1;
  const int64_t vs = running_var.dim() ? running_var.strides()[0] : 1;
  const auto [m0, m1] = span_of(running_mean, channels);
  const auto [v0, v1] = span_of(running_var, channels);
  const bool apart = m1 <= v0 || v1 <= m0;
  if (running_mean.dtype() == running_var.dtype() && ms != 0 && vs != 0 && apart) {
    EMBER_DISPATCH_FLOAT(running_mean.dtype(), "batch_norm", [&] {
      update_running_pair<scalar_t><<<grid_for(channels), kBlock, 0, current_stream(-1)>>>(
          running_mean.data<scalar_t>(), ms, mean, running_var.data<scalar_t>(), vs, var, channels, momentum, unbias);
    });
  } else {  // every mean, then every variance, as the CPU loops
    update_one(running_mean, mean, channels, momentum, 1.0);
    update_one(running_var, var, channels, momentum, unbias);
  }
  check_launch("batch_norm running statistics kernel");
}

void batch_norm_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                         const NCS& d, bool batch_stats, double eps, const double* rm, const double* rv,
                         ChannelView w) {
  if (d.c == 0) return;
  const int device = device_index(x);
  const LaunchDevice on(device);
  const ChannelSplit sp = split_channels(d);
  const Scratch sums(size_t(d.c * sp.parts * kSums) * sizeof(double), device);
  const Scratch coef(size_t(d.c * 5) * sizeof(double), device);
  EMBER_DISPATCH_FLOAT(x.dtype(), "batch_norm_backward", [&] {
    using A = opmath_t<scalar_t>;
    cudaStream_t s = current_stream(-1);
    channel_slice_sums<scalar_t><<<slice_grid(d, sp), kBlock, 0, s>>>(x.data<scalar_t>(), g.data<scalar_t>(), d, sp,
                                                                      batch_stats ? nullptr : rm, sums.as<double>());
    batch_backward_finish<scalar_t><<<grid_for(d.c), kBlock, 0, s>>>(x.data<scalar_t>(), d, sp, sums.as<double>(),
                                                                     batch_stats, eps, w, rm, rv, dw.data_or_null<A>(),
                                                                     db.data<A>(), coef.as<double>());
    const int64_t total = d.n * d.c * d.s;
    if (dx.defined() && total > 0)
      batch_backward_dx<scalar_t><<<grid_for(total), kBlock, 0, s>>>(
          x.data<scalar_t>(), g.data<scalar_t>(), dx.data<scalar_t>(), d, batch_stats, coef.as<double>());
    check_launch("batch_norm backward kernel");
  });
}

void group_norm_forward(const Tensor& x, const Tensor& y, const NCS& d, int64_t groups, double eps, ChannelView w,
                        ChannelView b) {
  const int64_t rows = d.n * groups;
  if (rows == 0 || x.numel() == 0) return;
  const LaunchDevice on(device_index(x));
  EMBER_DISPATCH_FLOAT(x.dtype(), "GroupNormKernelImpl", [&] {
    group_forward_kernel<scalar_t><<<capped_blocks(rows), kBlock, 0, current_stream(-1)>>>(
        x.data<scalar_t>(), y.data<scalar_t>(), d, groups, eps, w, b);
    check_launch("group_norm kernel");
  });
}

void group_norm_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                         const NCS& d, int64_t groups, double eps, ChannelView w) {
  if (d.c == 0) return;
  const int device = device_index(x);
  const LaunchDevice on(device);
  const int64_t rows = d.n * groups;
  const Scratch stats(size_t(2 * std::max<int64_t>(rows, 1)) * sizeof(double), device);
  double *mean = stats.as<double>(), *rstd = mean + std::max<int64_t>(rows, 1);
  EMBER_DISPATCH_FLOAT(x.dtype(), "GroupNormBackwardKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    cudaStream_t s = current_stream(-1);
    if (rows > 0) {
      group_backward_rows<scalar_t><<<capped_blocks(rows), kBlock, 0, s>>>(
          x.data<scalar_t>(), g.data<scalar_t>(), dx.data_or_null<scalar_t>(), d, groups, eps, w, mean, rstd);
      check_launch("group_norm backward kernel");
    }
    group_param_grads<scalar_t><<<capped_blocks(d.c), kBlock, 0, s>>>(x.data<scalar_t>(), g.data<scalar_t>(), d, groups,
                                                                      mean, rstd, dw.data_or_null<A>(), db.data<A>());
    check_launch("group_norm backward kernel");
  });
}

}  // namespace ember::cuda
