// Group normalization: forward (statistics, normalize and affine in one pass) and backward
// (statistics recomputed from the input). Double statistics. The row kernels are compiled for
// AVX-512 and AVX2 as well and picked at run time (isa_variants.h). The op bodies are
// ops/nn/nn_norm.cpp.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/isa_variants.h"
#include "kernels/cpu/norm/norm_kernels.h"
#include "kernels/cpu/norm/row_sums.h"

namespace ember::norms {

namespace {

// The rows r0..r1 (one row: one group of one sample, len = per * s contiguous values) of a pass.
template <class T>
struct Groups {
  NCS d;
  int64_t groups;
  double eps;
  const T* x;
  const T* g;  // backward
  T* y;        // forward: the result; backward: dx (nullptr: not wanted)
  ChannelView w, b;
  opmath_t<T>*gs, *gxs;                         // backward: per (sample, channel), sum(g) and rstd sum(g (x - mean))
  int64_t per() const { return d.c / groups; }  // channels per group
  int64_t len() const { return per() * d.s; }   // a row's length
};

// Mean (summed in double) and biased variance, two passes (no cancellation): the squares of
// x - m, m the mean rounded to the op-math type, in its lanes summed in double (layer_norm's
// precision), less (mean - m)^2, their mean's excess (1e6 + k / 4: m is off by up to 1/32).
template <class T>
EMBER_VEC_INLINE void moments(const T* x, int64_t n, double& mean, double& var) {
  using A = opmath_t<T>;
  if (n == 0) {
    mean = var = 0;
    return;
  }
  mean = quarter_sum(n, [x](int64_t i) EMBER_VEC_LAMBDA { return static_cast<double>(x[i]); }) / static_cast<double>(n);
  const A m = static_cast<A>(mean);
  const double q = quarter_blocked_sum<A>(n, [x, m](int64_t i) EMBER_VEC_LAMBDA {
    const A d = static_cast<A>(x[i]) - m;
    return d * d;
  });
  const double dm = mean - static_cast<double>(m);
  var = std::max(q / static_cast<double>(n) - dm * dm, 0.0);
}

// Row r's mean (into mu) and 1 / sqrt(var + eps).
template <class T>
EMBER_VEC_INLINE double row_rstd(const Groups<T>& p, int64_t r, double& mu) {
  double var;
  moments(p.x + r * p.len(), p.len(), mu, var);
  return 1.0 / std::sqrt(var + p.eps);
}

template <class T>
EMBER_VEC_INLINE void forward_rows(const Groups<T>& p, int64_t r0, int64_t r1) {
  using A = opmath_t<T>;
  const int64_t s = p.d.s;
  for (int64_t r = r0; r < r1; ++r) {
    double mu;
    const double inv = row_rstd(p, r, mu);
    // (x - mean) * scale + shift in the op-math type, the mean split as mh + ml: x - mh is exact
    // near the mean (where x * scale and the shift would cancel) and ml goes into the shift, so
    // the float32 result is within ~1.5 ulp of the double formula's (a group of one element:
    // exactly the bias) at a third of its vector instructions
    const A mh = static_cast<A>(mu);
    const double ml = mu - static_cast<double>(mh);
    for (int64_t cc = 0, per = p.per(), c0 = (r % p.groups) * per; cc < per; ++cc) {
      const int64_t c = c0 + cc;
      const A scale = static_cast<A>(p.w[c] * inv), shift = static_cast<A>(p.b[c] - ml * p.w[c] * inv);
      const T* xr = p.x + r * p.len() + cc * s;
      T* yr = p.y + r * p.len() + cc * s;
#pragma omp simd
      for (int64_t k = 0; k < s; ++k) yr[k] = T((static_cast<A>(xr[k]) - mh) * scale + shift);
    }
  }
}

// Per row: the statistics, then per channel sum(g) and rstd sum(g (x - mean)) into gs / gxs (the
// parameter gradients' terms, added over the batch afterwards), and from them
// dx = rstd (g w - mean(g w) - xhat mean(g w xhat)) where wanted. x and g are read twice.
template <class T>
EMBER_VEC_INLINE void backward_rows(const Groups<T>& p, int64_t r0, int64_t r1) {
  using A = opmath_t<T>;
  const int64_t per = p.per(), s = p.d.s, len = p.len();
  for (int64_t r = r0; r < r1; ++r) {
    double mu;
    const A rs = static_cast<A>(row_rstd(p, r, mu)), mu_a = static_cast<A>(mu);
    const int64_t c0 = (r % p.groups) * per;
    const T *xr = p.x + r * len, *gr = p.g + r * len;
    A* gs = p.gs + r * per;  // row r = (sample, group): its channels' entries are contiguous
    A* gxs = p.gxs + r * per;
    A s1 = 0, s2 = 0;
    for (int64_t cc = 0; cc < per; ++cc) {
      const T *xc = xr + cc * s, *gc = gr + cc * s;
      A tb = 0, tw = 0;
#pragma omp simd reduction(+ : tb, tw)
      for (int64_t k = 0; k < s; ++k) {
        const A gv = static_cast<A>(gc[k]);
        tb += gv;
        tw += gv * (static_cast<A>(xc[k]) - mu_a);
      }
      gs[cc] = tb;
      gxs[cc] = tw * rs;
      const A wc = static_cast<A>(p.w[c0 + cc]);
      s1 += wc * tb;
      s2 += wc * tw * rs;
    }
    if (!p.y) continue;
    const A inv_n = len ? A(1) / static_cast<A>(len) : A(0);
    s1 *= inv_n;
    s2 *= inv_n;
    T* dr = p.y + r * len;
    for (int64_t cc = 0; cc < per; ++cc) {
      const A wc = static_cast<A>(p.w[c0 + cc]);
      const T *xc = xr + cc * s, *gc = gr + cc * s;
      T* dc = dr + cc * s;
#pragma omp simd
      for (int64_t k = 0; k < s; ++k) {
        const A xh = (static_cast<A>(xc[k]) - mu_a) * rs;
        dc[k] = T(rs * (static_cast<A>(gc[k]) * wc - s1 - xh * s2));
      }
    }
  }
}

EMBER_ISA_VARIANTS(forward_rows, Groups)
EMBER_ISA_VARIANTS(backward_rows, Groups)

}  // namespace

void group_forward(const Tensor& x, const Tensor& y, const NCS& d, int64_t num_groups, double eps, norms::ChannelView w,
                   norms::ChannelView b) {
  EMBER_DISPATCH_FLOAT(x.dtype(), "GroupNormKernelImpl", [&] {
    const Groups<scalar_t> p{d, num_groups, eps,    x.data<scalar_t>(), nullptr, y.data<scalar_t>(), w,
                             b, nullptr,    nullptr};
    auto fn = forward_rows_best<scalar_t>();
    GilRelease nogil;
    parallel_for(0, d.n * num_groups, row_grain(p.len()), [&](int64_t r0, int64_t r1) { fn(p, r0, r1); });
  });
}

void group_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                    const NCS& d, int64_t groups, double eps, norms::ChannelView w) {
  EMBER_DISPATCH_FLOAT(x.dtype(), "GroupNormBackwardKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    std::vector<A> gs(static_cast<size_t>(d.n * d.c)), gxs(gs.size());
    const Groups<scalar_t> p{
        d, groups, eps,       x.data<scalar_t>(), g.data<scalar_t>(), dx.defined() ? dx.data<scalar_t>() : nullptr,
        w, {},     gs.data(), gxs.data()};
    auto fn = backward_rows_best<scalar_t>();
    GilRelease nogil;
    parallel_for(0, d.n * groups, row_grain(p.len()), [&](int64_t r0, int64_t r1) { fn(p, r0, r1); });
    // the parameter gradients (their dtype: op-math) sum those terms over the batch
    A* dwp = dw.defined() ? dw.data<A>() : nullptr;
    A* dbp = db.data<A>();
    for (int64_t c = 0; c < d.c; ++c) {
      A sw = 0, sb = 0;
      for (int64_t i = 0; i < d.n; ++i) {
        sb += gs[static_cast<size_t>(i * d.c + c)];
        sw += gxs[static_cast<size_t>(i * d.c + c)];
      }
      dbp[c] = sb;
      if (dwp) dwp[c] = sw;
    }
  });
}

}  // namespace ember::norms
