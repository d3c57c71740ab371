// Group normalization: forward (statistics, normalize and affine in one pass) and backward
// (statistics recomputed from the input). Double statistics. The op bodies are
// ops/nn/nn_norm.cpp.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/norm/norm_kernels.h"

namespace ember::norms {

namespace {

// Mean and biased variance of n contiguous values (two passes: no cancellation).
template <class T>
void moments(const T* x, int64_t n, double& mean, double& var) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i]);
  mean = n ? s / static_cast<double>(n) : 0.0;
  double q = 0;
#pragma omp simd reduction(+ : q)
  for (int64_t i = 0; i < n; ++i) {
    double d = static_cast<double>(x[i]) - mean;
    q += d * d;
  }
  var = n ? q / static_cast<double>(n) : 0.0;
}

}  // namespace

void group_forward(const Tensor& x, const Tensor& y, const NCS& d, int64_t num_groups, double eps, norms::ChannelView w,
                   norms::ChannelView b) {
  const int64_t per = d.c / num_groups, len = per * d.s, rows = d.n * num_groups;
  EMBER_DISPATCH_FLOAT(x.dtype(), "GroupNormKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* yp = y.data<scalar_t>();
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        double mu, var;
        moments(xp + r * len, len, mu, var);
        const double inv = 1.0 / std::sqrt(var + eps);
        const int64_t c0 = (r % num_groups) * per;
        for (int64_t cc = 0; cc < per; ++cc) {
          const int64_t c = c0 + cc;
          // x * scale + shift in double, rounded once: in the input's precision the two terms
          // cancel where x is near the mean (a group of one element: off by an ulp of x * scale)
          const double scale = w[c] * inv, shift = b[c] - mu * w[c] * inv;
          const scalar_t* p = xp + r * len + cc * d.s;
          scalar_t* q = yp + r * len + cc * d.s;
          for (int64_t k = 0; k < d.s; ++k) q[k] = scalar_t(static_cast<A>(static_cast<double>(p[k]) * scale + shift));
        }
      }
    });
  });
}

void group_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                    const NCS& d, int64_t groups, double eps, norms::ChannelView w) {
  const int64_t per = d.c / groups, len = per * d.s, rows = d.n * groups;
  std::vector<double> mean(static_cast<size_t>(rows)), rstd(static_cast<size_t>(rows));
  EMBER_DISPATCH_FLOAT(x.dtype(), "GroupNormBackwardKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* xp = x.data<scalar_t>();
    const scalar_t* gp = g.data<scalar_t>();
    scalar_t* dxp = dx.defined() ? dx.data<scalar_t>() : nullptr;
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        double mu, var;
        moments(xp + r * len, len, mu, var);
        mean[r] = mu;
        rstd[r] = 1.0 / std::sqrt(var + eps);
        if (!dxp) continue;
        const int64_t c0 = (r % groups) * per;
        const A mu_a = static_cast<A>(mu), rs = static_cast<A>(rstd[r]);
        A s1 = 0, s2 = 0;
        for (int64_t cc = 0; cc < per; ++cc) {
          const A wc = static_cast<A>(w[c0 + cc]);
          for (int64_t k = 0; k < d.s; ++k) {
            const int64_t i = r * len + cc * d.s + k;
            A dxh = static_cast<A>(gp[i]) * wc;
            s1 += dxh;
            s2 += dxh * (static_cast<A>(xp[i]) - mu_a) * rs;
          }
        }
        const A inv_n = len ? A(1) / static_cast<A>(len) : A(0);
        s1 *= inv_n;
        s2 *= inv_n;
        for (int64_t cc = 0; cc < per; ++cc) {
          const A wc = static_cast<A>(w[c0 + cc]);
          for (int64_t k = 0; k < d.s; ++k) {
            const int64_t i = r * len + cc * d.s + k;
            A xh = (static_cast<A>(xp[i]) - mu_a) * rs;
            dxp[i] = scalar_t(rs * (static_cast<A>(gp[i]) * wc - s1 - xh * s2));
          }
        }
      }
    });
    A* dwp = dw.defined() ? dw.data<A>() : nullptr;  // the parameter gradients' dtype
    A* dbp = db.data<A>();
    parallel_for(0, d.c, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        A sw = 0, sb = 0;
        for (int64_t i = 0; i < d.n; ++i) {
          const int64_t r = i * groups + c / per;
          const A mu_a = static_cast<A>(mean[r]), rs = static_cast<A>(rstd[r]);
          const scalar_t *xr = xp + (i * d.c + c) * d.s, *gr = gp + (i * d.c + c) * d.s;
          for (int64_t k = 0; k < d.s; ++k) {
            A gv = static_cast<A>(gr[k]);
            sb += gv;
            sw += gv * (static_cast<A>(xr[k]) - mu_a) * rs;
          }
        }
        dbp[c] = sb;
        if (dwp) dwp[c] = sw;
      }
    });
  });
}

}  // namespace ember::norms
