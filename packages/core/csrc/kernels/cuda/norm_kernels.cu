// Layer, batch and group norm on the GPU, mirroring the CPU kernels (kernels/cpu/norm): the same
// statistics (double sums; two passes, so no cancellation), the same op-math steps and roundings.
// A row (layer norm), channel (batch norm) or group (group norm) takes a block of 256 threads whose
// partial sums meet in a shared-memory tree; the parameter gradients' column sums of layer norm go
// by row chunks, then one pass over the chunks. The op bodies (ops/nn/nn_layer_norm.cpp,
// nn_norm.cpp) hand the parameters and statistics over as device arrays: nothing waits for the device.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/cuda/device_scratch.h"
#include "kernels/cuda/norm_kernels.h"
#include "kernels/cuda/pointwise_launch.cuh"

namespace ember::cuda {

namespace {

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

// Mean and biased variance of channel c, two passes in double.
template <class T>
__device__ void channel_stats(const T* x, const NCS& d, int64_t c, double& mean, double& var, double* sh) {
  const int64_t cnt = d.n * d.s;
  double s = 0;
  for (int64_t i = threadIdx.x; i < cnt; i += kBlock) s += static_cast<double>(x[channel_at(d, c, i)]);
  mean = cnt ? block_reduce(s, sh) / static_cast<double>(cnt) : 0.0;
  double q = 0;
  for (int64_t i = threadIdx.x; i < cnt; i += kBlock) {
    const double v = static_cast<double>(x[channel_at(d, c, i)]) - mean;
    q += v * v;
  }
  var = cnt ? block_reduce(q, sh) / static_cast<double>(cnt) : 0.0;
}

template <class T>
__global__ void batch_stats_kernel(const T* x, NCS d, double* mean, double* var) {
  __shared__ double sh[kBlock];
  for (int64_t c = blockIdx.x; c < d.c; c += gridDim.x) {
    double mu, v;
    channel_stats(x, d, c, mu, v, sh);
    if (threadIdx.x == 0) {
      mean[c] = mu;
      var[c] = v;
    }
  }
}

// The CPU's bn_normalize, element by element, from c doubles each of mean and variance (the
// batch's or the running ones), weight and bias.
template <class T>
__global__ void batch_normalize_kernel(const T* x, T* y, NCS d, const double* mean, const double* var, const double* w,
                                       const double* b, double eps, bool batch_stats, bool centered, bool half_steps) {
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

// running = momentum * factor * batch + (1 - momentum) * running; a running tensor whose channels
// share memory (stride 0) takes each channel's update in turn, as the CPU loop gives.
template <class T>
__global__ void update_running_kernel(T* p, int64_t st, const double* batch, int64_t channels, double momentum,
                                      double factor) {
  if (st == 0) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    for (int64_t i = 0; i < channels; ++i)
      p[0] = T(momentum * batch[i] * factor + (1 - momentum) * static_cast<double>(p[0]));
    return;
  }
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < channels; i += int64_t(gridDim.x) * blockDim.x) {
    T& r = p[i * st];
    r = T(momentum * batch[i] * factor + (1 - momentum) * static_cast<double>(r));
  }
}

// w: the weight; rm, rv: the running mean and variance (read without batch statistics); c doubles each.
template <class T>
__global__ void batch_backward_kernel(const T* x, const T* g, T* dx, opmath_t<T>* dw, opmath_t<T>* db, NCS d,
                                      bool batch_stats, double eps, const double* w, const double* rm,
                                      const double* rv) {
  using A = opmath_t<T>;
  __shared__ double sh[kBlock];
  const int64_t cnt = d.n * d.s;
  for (int64_t c = blockIdx.x; c < d.c; c += gridDim.x) {
    double mean = batch_stats ? 0.0 : rm[c], var = batch_stats ? 1.0 : rv[c];
    if (batch_stats) channel_stats(x, d, c, mean, var, sh);
    const double inv = inv_std(var, eps, batch_stats);
    const A mu = static_cast<A>(mean);
    double sg = 0, sgx = 0;
    for (int64_t i = threadIdx.x; i < cnt; i += kBlock) {
      const int64_t k = channel_at(d, c, i);
      const A gv = static_cast<A>(g[k]);
      sg += static_cast<double>(gv);
      sgx += static_cast<double>(gv * (static_cast<A>(x[k]) - mu));
    }
    sg = block_reduce(sg, sh);
    sgx = block_reduce(sgx, sh) * inv;
    if (threadIdx.x == 0) {
      db[c] = static_cast<A>(sg);
      if (dw) dw[c] = static_cast<A>(sgx);
    }
    if (!dx) continue;
    const A k_inv = static_cast<A>(inv), wk = static_cast<A>(w[c] * inv);
    const A mg = static_cast<A>(cnt ? sg / static_cast<double>(cnt) : 0.0);
    const A mgx = static_cast<A>(cnt ? sgx / static_cast<double>(cnt) : 0.0);
    for (int64_t i = threadIdx.x; i < cnt; i += kBlock) {
      const int64_t k = channel_at(d, c, i);
      if (batch_stats) {
        const A xh = (static_cast<A>(x[k]) - mu) * k_inv;
        dx[k] = static_cast<T>(wk * (static_cast<A>(g[k]) - mg - xh * mgx));
      } else {
        dx[k] = static_cast<T>(static_cast<A>(g[k]) * wk);
      }
    }
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
__global__ void group_forward_kernel(const T* x, T* y, NCS d, int64_t groups, double eps, const double* w,
                                     const double* b) {
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
__global__ void group_backward_rows(const T* x, const T* g, T* dx, NCS d, int64_t groups, double eps, const double* w,
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
  const LaunchDevice on(device_index(x));
  EMBER_DISPATCH_FLOAT(x.dtype(), "batch_norm", [&] {
    cudaStream_t s = current_stream(-1);
    if (a.batch_stats) {  // into the op body's device arrays: the running statistics' update reads them there
      batch_stats_kernel<scalar_t><<<capped_blocks(d.c), kBlock, 0, s>>>(x.data<scalar_t>(), d, a.mean, a.var);
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

void batch_norm_update_running(const Tensor& running, const double* batch, int64_t channels, double momentum,
                               double factor) {
  if (channels == 0) return;
  const LaunchDevice on(device_index(running));
  EMBER_DISPATCH_FLOAT(running.dtype(), "batch_norm", [&] {
    const int64_t st = running.dim() ? running.strides()[0] : 1;
    update_running_kernel<scalar_t><<<grid_for(channels), kBlock, 0, current_stream(-1)>>>(
        running.data<scalar_t>(), st, batch, channels, momentum, factor);
    check_launch("batch_norm running statistics kernel");
  });
}

void batch_norm_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                         const NCS& d, bool batch_stats, double eps, const double* rm, const double* rv,
                         const double* w) {
  if (d.c == 0) return;
  const LaunchDevice on(device_index(x));
  EMBER_DISPATCH_FLOAT(x.dtype(), "batch_norm_backward", [&] {
    using A = opmath_t<scalar_t>;
    batch_backward_kernel<scalar_t><<<capped_blocks(d.c), kBlock, 0, current_stream(-1)>>>(
        x.data<scalar_t>(), g.data<scalar_t>(), dx.data_or_null<scalar_t>(), dw.data_or_null<A>(), db.data<A>(), d,
        batch_stats, eps, w, rm, rv);
    check_launch("batch_norm backward kernel");
  });
}

void group_norm_forward(const Tensor& x, const Tensor& y, const NCS& d, int64_t groups, double eps, const double* w,
                        const double* b) {
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
                         const NCS& d, int64_t groups, double eps, const double* w) {
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
