// Fused batch normalization: statistics, normalize and affine in one pass over the output, and
// the backward pass (statistics recomputed from the input, cheaper than keeping them alive in
// the graph). Double sums; per-channel passes compiled for AVX-512 / AVX2 too
// (EMBER_ISA_VARIANTS). The op bodies are ops/nn/nn_norm.cpp.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/isa_variants.h"
#include "kernels/cpu/norm/norm_kernels.h"
#include "kernels/cpu/norm/row_sums.h"

namespace ember::norms {

namespace {

// 1 / sqrt(var + eps); aten's InvStd for batch statistics: 0 for a variance and eps both 0 (the
// output is then the bias, the gradient 0), where the running statistics give inf.
inline double inv_std(double var, double eps, bool batch_stats) {
  return batch_stats && var == 0 && eps == 0 ? 0.0 : 1.0 / std::sqrt(var + eps);
}

// Per-channel passes over planes (n, c) of s contiguous elements each. Sums: blocked_sum.
template <class T>
struct BnArgs {
  NCS d;
  bool batch_stats;
  double eps;
  const T *x, *g;
  T *y, *dx;
  double *mean, *var;       // batch statistics (written by bn_stats) or the running ones
  norms::ChannelView w, b;  // weight, bias per channel
  const double* rs;         // 1/sqrt(var + eps) per channel (forward)
  double *dw, *db;          // backward sums per channel
  bool centered = false;    // BatchForward::centered
  bool half_steps = false;  // BatchForward::half_steps
};

// Two passes in double, as aten's double sums: equal values have their own value as the mean
// exactly (a float-lane sum of them need not), so a variance of exactly 0, and a large mean
// cancels nothing.
template <class T>
EMBER_VEC_INLINE void bn_channel_stats(const BnArgs<T>& p, int64_t c, double& mean, double& var) {
  const NCS& d = p.d;
  const double cnt = static_cast<double>(d.n * d.s);
  double s = 0;
  for (int64_t i = 0; i < d.n; ++i) {
    const T* x = p.x + (i * d.c + c) * d.s;
    s += blocked_sum<double>(d.s, [&](int64_t k) { return static_cast<double>(x[k]); });
  }
  mean = cnt ? s / cnt : 0.0;
  const double mu = mean;
  double q = 0;
  for (int64_t i = 0; i < d.n; ++i) {
    const T* x = p.x + (i * d.c + c) * d.s;
    q += blocked_sum<double>(d.s, [&](int64_t k) {
      const double v = static_cast<double>(x[k]) - mu;
      return v * v;
    });
  }
  var = cnt ? q / cnt : 0.0;
}

template <class T>
EMBER_VEC_INLINE void bn_stats(const BnArgs<T>& p, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c) bn_channel_stats(p, c, p.mean[c], p.var[c]);
}

// y = x * scale + shift over planes r0..r1 (r = n * C + c).
template <class T>
EMBER_VEC_INLINE void bn_normalize(const BnArgs<T>& p, int64_t r0, int64_t r1) {
  using A = opmath_t<T>;
  const NCS& d = p.d;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t c = r % d.c;
    const T* x = p.x + r * d.s;
    T* y = p.y + r * d.s;
    if (p.centered) {
      const A mu = static_cast<A>(p.mean[c]), rs = static_cast<A>(p.rs[c]), w = static_cast<A>(p.w[c]),
              b = static_cast<A>(p.b[c]);
      if constexpr (!std::is_same_v<T, A>) {
        if (p.half_steps) {
          auto h = [](A v) { return static_cast<A>(static_cast<T>(v)); };
          const A hm = h(mu), hr = h(rs), hw = h(w), hb = h(b);
          for (int64_t k = 0; k < d.s; ++k) y[k] = static_cast<T>(h(h(h(static_cast<A>(x[k]) - hm) * hr) * hw) + hb);
          continue;
        }
      }
#pragma omp simd
      for (int64_t k = 0; k < d.s; ++k) y[k] = static_cast<T>((static_cast<A>(x[k]) - mu) * rs * w + b);
      continue;
    }
    // x * scale + shift in double, rounded once: in float the two terms cancel where x is near the
    // mean (x equal to it: off by an ulp of x * scale, not the bias)
    const double scale = p.w[c] * p.rs[c], shift = p.b[c] - p.mean[c] * scale;
#pragma omp simd
    for (int64_t k = 0; k < d.s; ++k) y[k] = static_cast<T>(static_cast<A>(static_cast<double>(x[k]) * scale + shift));
  }
}

// d(bias) = sum(g), d(weight) = sum(g * xhat), and dx when wanted, per channel c0..c1.
template <class T>
EMBER_VEC_INLINE void bn_backward(const BnArgs<T>& p, int64_t c0, int64_t c1) {
  using A = opmath_t<T>;
  const NCS& d = p.d;
  const double cnt = static_cast<double>(d.n * d.s);
  for (int64_t c = c0; c < c1; ++c) {
    double mean = p.mean ? p.mean[c] : 0.0, var = p.var ? p.var[c] : 1.0;
    if (p.batch_stats) bn_channel_stats(p, c, mean, var);
    const double inv = inv_std(var, p.eps, p.batch_stats);
    const A mu = static_cast<A>(mean);
    double sg = 0, sgx = 0;
    for (int64_t i = 0; i < d.n; ++i) {
      const T *x = p.x + (i * d.c + c) * d.s, *g = p.g + (i * d.c + c) * d.s;
      sg += blocked_sum<A>(d.s, [&](int64_t k) { return static_cast<A>(g[k]); });
      sgx += blocked_sum<A>(d.s, [&](int64_t k) { return static_cast<A>(g[k]) * (static_cast<A>(x[k]) - mu); });
    }
    sgx *= inv;
    p.db[c] = sg;
    p.dw[c] = sgx;
    if (!p.dx) continue;
    const A k_inv = static_cast<A>(inv), wk = static_cast<A>(p.w[c] * inv);
    const A mg = static_cast<A>(cnt ? sg / cnt : 0.0), mgx = static_cast<A>(cnt ? sgx / cnt : 0.0);
    for (int64_t i = 0; i < d.n; ++i) {
      const T *x = p.x + (i * d.c + c) * d.s, *g = p.g + (i * d.c + c) * d.s;
      T* dx = p.dx + (i * d.c + c) * d.s;
      if (p.batch_stats) {
#pragma omp simd
        for (int64_t k = 0; k < d.s; ++k) {
          const A xh = (static_cast<A>(x[k]) - mu) * k_inv;
          dx[k] = static_cast<T>(wk * (static_cast<A>(g[k]) - mg - xh * mgx));
        }
      } else {
#pragma omp simd
        for (int64_t k = 0; k < d.s; ++k) dx[k] = static_cast<T>(static_cast<A>(g[k]) * wk);
      }
    }
  }
}

EMBER_ISA_VARIANTS(bn_stats, BnArgs)
EMBER_ISA_VARIANTS(bn_normalize, BnArgs)
EMBER_ISA_VARIANTS(bn_backward, BnArgs)

}  // namespace

void batch_forward(const Tensor& x, const Tensor& y, const BatchForward& a) {
  const NCS& d = a.d;
  const int64_t cnt = d.n * d.s;
  std::vector<double> rs(static_cast<size_t>(d.c));
  EMBER_DISPATCH_FLOAT(x.dtype(), "batch_norm", [&] {
    BnArgs<scalar_t> p{d,          a.batch_stats,
                       a.eps,      x.data<scalar_t>(),
                       nullptr,    y.data<scalar_t>(),
                       nullptr,    a.mean,
                       a.var,      a.w,
                       a.b,        rs.data(),
                       nullptr,    nullptr,
                       a.centered, a.half_steps};
    GilRelease nogil;
    if (a.batch_stats) {
      auto stats = bn_stats_best<scalar_t>();
      parallel_for(0, d.c, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cnt, 1)),
                   [&](int64_t c0, int64_t c1) { stats(p, c0, c1); });
    }
    for (int64_t c = 0; c < d.c; ++c) rs[c] = inv_std(a.var[c], a.eps, a.batch_stats);
    auto norm = bn_normalize_best<scalar_t>();
    parallel_for(0, d.n * d.c, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(d.s, 1)),
                 [&](int64_t r0, int64_t r1) { norm(p, r0, r1); });
  });
}

namespace {

// Each channel reads the running value as it is now: a running statistic whose channels share
// memory (an expanded view) takes every channel's update in turn, as aten's loop gives.
void update_running(const Tensor& t, const double* batch, int64_t channels, double momentum, double factor) {
  EMBER_DISPATCH_FLOAT(t.dtype(), "batch_norm", [&] {
    scalar_t* p = t.data<scalar_t>();
    const int64_t st = t.dim() ? t.strides()[0] : 1;
    for (int64_t i = 0; i < channels; ++i) {
      scalar_t& r = p[i * st];
      r = scalar_t(momentum * batch[i] * factor + (1 - momentum) * static_cast<double>(r));
    }
  });
}

}  // namespace

void batch_update_running(const Tensor& running_mean, const double* mean, const Tensor& running_var, const double* var,
                          int64_t channels, double momentum, double unbias) {
  update_running(running_mean, mean, channels, momentum, 1.0);
  update_running(running_var, var, channels, momentum, unbias);
}

void batch_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw_out, const Tensor& db_out,
                    const NCS& d, bool batch_stats, double eps, const double* rm, const double* rv,
                    norms::ChannelView w) {
  const int64_t cnt = d.n * d.s;
  std::vector<double> dw(static_cast<size_t>(d.c)), db(static_cast<size_t>(d.c));
  EMBER_DISPATCH_FLOAT(x.dtype(), "batch_norm_backward", [&] {
    BnArgs<scalar_t> p{d,
                       batch_stats,
                       eps,
                       x.data<scalar_t>(),
                       g.data<scalar_t>(),
                       nullptr,
                       dx.defined() ? dx.data<scalar_t>() : nullptr,
                       const_cast<double*>(rm),  // read only: bn_stats alone writes them
                       const_cast<double*>(rv),
                       w,
                       {},
                       nullptr,
                       dw.data(),
                       db.data()};
    auto fn = bn_backward_best<scalar_t>();
    {
      GilRelease nogil;
      parallel_for(0, d.c, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cnt, 1)),
                   [&](int64_t c0, int64_t c1) { fn(p, c0, c1); });
    }
    using A = opmath_t<scalar_t>;  // the parameter gradients' dtype
    A* dbp = db_out.data<A>();
    for (int64_t c = 0; c < d.c; ++c) dbp[c] = static_cast<A>(db[c]);
    if (dw_out.defined()) {
      A* dwp = dw_out.data<A>();
      for (int64_t c = 0; c < d.c; ++c) dwp[c] = static_cast<A>(dw[c]);
    }
  });
}

}  // namespace ember::norms
