// Fused batch / group normalization (layer norm: nn_layer_norm.cpp): statistics, normalize
// and affine in one pass over the output, and the matching backward kernels (statistics
// recomputed from the input, cheaper than keeping them alive in the graph). Double sums.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "iter/elementwise_iter.h"
#include "kernels/cpu/isa_variants.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/nn/nn_fused_backward.h"
#include "ops/nn/nn_norm_common.h"

namespace ember {

using namespace norm_detail;

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

// Per-channel values of an optional 1-D tensor as doubles (any dtype, any stride).
std::vector<double> channel_values(const Tensor& t, int64_t c, double fill) {
  std::vector<double> v(static_cast<size_t>(c), fill);
  if (!t.defined()) return v;
  Tensor d = dense(to_dtype(t, ScalarType::Float64));
  const double* p = d.data<double>();
  for (int64_t i = 0; i < c; ++i) v[i] = p[i];
  return v;
}

// running = (1 - momentum) * running + momentum * factor * batch, channel by channel in place,
// each reading the running value as it is now: a running statistic whose channels share memory
// (an expanded view) takes every channel's update in turn, as aten's loop gives. The version
// counter is left alone on purpose: the op's graph node keeps these tensors for its backward.
void update_running(const Tensor& t, const std::vector<double>& batch, double momentum, double factor) {
  EMBER_DISPATCH_FLOAT(t.dtype(), "batch_norm", [&] {
    scalar_t* p = t.data<scalar_t>();
    const int64_t st = t.dim() ? t.strides()[0] : 1;
    for (size_t i = 0; i < batch.size(); ++i) {
      scalar_t& r = p[static_cast<int64_t>(i) * st];
      r = scalar_t(momentum * batch[i] * factor + (1 - momentum) * static_cast<double>(r));
    }
  });
}

// Contiguous in aten's sense for batch norm: row-major or channels-last (4-d / 5-d).
bool contiguous_or_channels_last(const Tensor& x) {
  if (x.is_contiguous()) return true;
  if (x.dim() != 4 && x.dim() != 5) return false;
  int64_t expect = 1;
  std::vector<int64_t> order{1};
  for (int64_t d = x.dim() - 1; d >= 2; --d) order.push_back(d);
  order.push_back(0);
  for (int64_t d : order) {
    if (x.size(d) != 1 && x.strides()[d] != expect) return false;
    expect *= x.size(d);
  }
  return true;
}

struct NCS {
  int64_t n = 1, c = 1, s = 1;
};

NCS ncs(const Tensor& x) {
  NCS r;
  r.n = x.sizes()[0];
  r.c = x.sizes()[1];
  for (int64_t d = 2; d < x.dim(); ++d) r.s *= x.sizes()[d];
  return r;
}

// Per-channel passes of batch norm over planes (n, c) of s contiguous elements each, as
// range kernels compiled for AVX-512 / AVX2 too (EMBER_ISA_VARIANTS). Sums: blocked_sum.
template <class T>
struct BnArgs {
  NCS d;
  bool batch_stats;
  double eps;
  const T *x, *g;
  T *y, *dx;
  double *mean, *var;        // batch statistics (written by bn_stats) or the running ones
  const double *w, *b, *rs;  // weight, bias, 1/sqrt(var + eps) per channel (forward)
  double *dw, *db;           // backward sums per channel
  // aten's transform for an input (or parameter) that is not contiguous: ((x - mean) * rstd) * w
  // + b, exact where x equals the mean; a contiguous one takes x * scale + shift.
  bool centered = false;
  // ... in the parameters' dtype: a half type (not aten's mixed float32 parameters) rounds the
  // statistics and every step to it
  bool half_steps = false;
};

template <class T>
EMBER_VEC_INLINE void bn_channel_stats(const BnArgs<T>& p, int64_t c, double& mean, double& var) {
  using A = opmath_t<T>;
  const NCS& d = p.d;
  const double cnt = static_cast<double>(d.n * d.s);
  double s = 0;
  for (int64_t i = 0; i < d.n; ++i) {
    const T* x = p.x + (i * d.c + c) * d.s;
    s += blocked_sum<A>(d.s, [&](int64_t k) { return static_cast<A>(x[k]); });
  }
  mean = cnt ? s / cnt : 0.0;
  const A mu = static_cast<A>(mean);
  double q = 0;
  for (int64_t i = 0; i < d.n; ++i) {
    const T* x = p.x + (i * d.c + c) * d.s;
    q += blocked_sum<A>(d.s, [&](int64_t k) {
      const A v = static_cast<A>(x[k]) - mu;
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
    const A scale = static_cast<A>(p.w[c] * p.rs[c]), shift = static_cast<A>(p.b[c] - p.mean[c] * p.w[c] * p.rs[c]);
#pragma omp simd
    for (int64_t k = 0; k < d.s; ++k) y[k] = static_cast<T>(static_cast<A>(x[k]) * scale + shift);
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
    const double inv = 1.0 / std::sqrt(var + p.eps);
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

// ---------------------------------------------------------------- batch_norm

Tensor nn_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                     const Tensor& running_var, bool training, double momentum, double eps, bool cudnn_enabled) {
  (void)cudnn_enabled;
  // aten: an empty input is input.clone() (times weight[0], plus bias[0]), nothing else checked.
  if (input.numel() == 0) {
    Tensor out = clone(input, std::nullopt);
    if (weight.defined()) out = mul(out, select(weight, 0, 0));
    if (bias.defined()) out = add(out, select(bias, 0, 0), Scalar(int64_t(1)));
    return out;
  }
  // aten reads input.sizes()[1] unchecked: below 2 dims that is 0 (an unused inline slot), so
  // the per-channel tensors meet 0 channels before such an input fails as a dim error.
  const int64_t channels = input.dim() >= 2 ? input.size(1) : 0;
  // aten's order: the running stats (or their absence in evaluation mode), then weight and bias.
  for (const auto& [t, what] : {std::pair<const Tensor*, const char*>{&running_mean, "running_mean"},
                                {&running_var, "running_var"},
                                {&weight, "weight"},
                                {&bias, "bias"}}) {
    if (t->defined())
      EMBER_CHECK(t->numel() == channels, what, " should contain ", channels, " elements not ", t->numel());
    else if (t == &running_mean || t == &running_var)
      EMBER_CHECK(training, what, " must be defined in evaluation mode");
  }
  EMBER_CHECK_VALUE(running_mean.defined() == running_var.defined(),
                    "running_mean and running_var must either both be None or neither be None");
  // aten's training path without running statistics first averages an input that is neither
  // contiguous nor channels-last (at::mean): an integer or bool one fails there. With running
  // statistics its dtype dispatch comes first (the NotImplementedError below).
  if (training && !running_mean.defined() && !is_floating(input.dtype()) && !contiguous_or_channels_last(input))
    fail(ErrorKind::Runtime,
         "mean(): could not infer output dtype. Input dtype must be either a floating point or "
         "complex dtype. Got: ",
         legacy_name(input.dtype()));
  // Past those checks aten's 0-d input fails growing a SmallVector to a garbage size (a
  // RuntimeError), a 1-d one reading size(1) (an IndexError).
  EMBER_CHECK(input.dim() > 0, "batch_norm: a 0-d input has no channel dim");
  if (input.dim() < 2) (void)wrap_dim(1, input.dim());
  const NCS d = ncs(input);
  check_float(input, "batch_norm");  // the kernel's dtype dispatch comes after those checks
  // float32 parameters and statistics beside a half-type input (aten's mixed type), or all of
  // the input's dtype; the kernel reads them as doubles either way.
  const bool mixed = mixed_params(input, {&weight, &bias, &running_mean, &running_var});
  if (!mixed)
    for (const Tensor* t : {&weight, &bias, &running_mean, &running_var}) check_affine(*t, input);
  bool centered = !contiguous_or_channels_last(input);
  for (const Tensor* t : {&weight, &bias, &running_mean, &running_var})
    centered = centered || (t->defined() && !t->is_contiguous());
  Tensor x = dense(input);
  Tensor y = empty(x.sizes(), x.dtype());
  const bool batch_stats = training;
  std::vector<double> mean(static_cast<size_t>(d.c)), var(static_cast<size_t>(d.c));
  std::vector<double> w = channel_values(weight, d.c, 1.0), b = channel_values(bias, d.c, 0.0);
  const int64_t cnt = d.n * d.s;
  std::vector<double> rs(static_cast<size_t>(d.c));
  EMBER_DISPATCH_FLOAT(x.dtype(), "batch_norm", [&] {
    BnArgs<scalar_t> p{d,          batch_stats,
                       eps,        x.data<scalar_t>(),
                       nullptr,    y.data<scalar_t>(),
                       nullptr,    mean.data(),
                       var.data(), w.data(),
                       b.data(),   rs.data(),
                       nullptr,    nullptr,
                       centered,   !mixed};
    GilRelease nogil;
    if (batch_stats) {
      auto stats = bn_stats_best<scalar_t>();
      parallel_for(0, d.c, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cnt, 1)),
                   [&](int64_t c0, int64_t c1) { stats(p, c0, c1); });
    } else {
      mean = channel_values(running_mean, d.c, 0.0);
      var = channel_values(running_var, d.c, 1.0);
      p.mean = mean.data();
      p.var = var.data();
    }
    for (int64_t c = 0; c < d.c; ++c) rs[c] = 1.0 / std::sqrt(var[c] + eps);
    auto norm = bn_normalize_best<scalar_t>();
    parallel_for(0, d.n * d.c, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(d.s, 1)),
                 [&](int64_t r0, int64_t r1) { norm(p, r0, r1); });
  });
  if (training && running_mean.defined() && running_var.defined() && cnt > 0) {
    const double unbias =
        cnt > 1 ? static_cast<double>(cnt) / static_cast<double>(cnt - 1) : std::numeric_limits<double>::infinity();
    update_running(running_mean, mean, momentum, 1.0);
    update_running(running_var, var, momentum, unbias);
  }
  return y;
}

namespace nn_kernels {

std::array<Tensor, 3> batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                          const Tensor& running_mean, const Tensor& running_var, bool training,
                                          double eps, int first) {
  std::array<Tensor, 3> out;
  Tensor x = dense(input), g = dense_as(grad, input);
  const NCS d = ncs(x);
  const int64_t cnt = d.n * d.s;
  const bool batch_stats = training || !running_mean.defined() || !running_var.defined();
  std::vector<double> w = channel_values(weight, d.c, 1.0);
  std::vector<double> rm = batch_stats ? std::vector<double>() : channel_values(running_mean, d.c, 0.0);
  std::vector<double> rv = batch_stats ? std::vector<double>() : channel_values(running_var, d.c, 1.0);
  if (first == 0) out[0] = empty(x.sizes(), x.dtype());
  if (first <= 1 && weight.defined()) out[1] = empty({d.c}, param_grad_dtype(x));
  out[2] = empty({d.c}, param_grad_dtype(x));
  std::vector<double> dw(static_cast<size_t>(d.c)), db(static_cast<size_t>(d.c));
  EMBER_DISPATCH_FLOAT(x.dtype(), "batch_norm_backward", [&] {
    BnArgs<scalar_t> p{d,
                       batch_stats,
                       eps,
                       x.data<scalar_t>(),
                       g.data<scalar_t>(),
                       nullptr,
                       out[0].defined() ? out[0].data<scalar_t>() : nullptr,
                       batch_stats ? nullptr : rm.data(),
                       batch_stats ? nullptr : rv.data(),
                       w.data(),
                       nullptr,
                       nullptr,
                       dw.data(),
                       db.data()};
    auto fn = bn_backward_best<scalar_t>();
    {
      GilRelease nogil;
      parallel_for(0, d.c, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cnt, 1)),
                   [&](int64_t c0, int64_t c1) { fn(p, c0, c1); });
    }
    using A = opmath_t<scalar_t>;  // param_grad_dtype
    A* dbp = out[2].data<A>();
    for (int64_t c = 0; c < d.c; ++c) dbp[c] = static_cast<A>(db[c]);
    if (out[1].defined()) {
      A* dwp = out[1].data<A>();
      for (int64_t c = 0; c < d.c; ++c) dwp[c] = static_cast<A>(dw[c]);
    }
  });
  return out;
}

}  // namespace nn_kernels

// ---------------------------------------------------------------- group_norm

namespace {

void check_group(const Tensor& x, int64_t groups, const Tensor& w, const Tensor& b) {
  if (x.dim() < 2) (void)wrap_dim(1, x.dim());  // PyTorch's dim error comes first
  EMBER_CHECK(x.dim() >= 2, "Expected at least 2 dimensions for input tensor but received ", x.dim());
  const int64_t c = x.sizes()[1];
  EMBER_CHECK(groups > 0, "Expected num groups to be greater than 0, got ", groups);
  EMBER_CHECK(c % groups == 0, "Expected number of channels in input to be divisible by ",
              "num_groups, but got input of shape ", shape_str(x.sizes()), " and num_groups=", groups);
  for (const Tensor* t : {&w, &b})
    if (t->defined())
      EMBER_CHECK(t->dim() == 1 && t->numel() == c, "Expected ", t == &w ? "weight" : "bias",
                  " to be a vector of size equal to the number of channels in input, but got ",
                  t == &w ? "weight" : "bias", " of shape ", shape_str(t->sizes()), " and input of shape ",
                  shape_str(x.sizes()));
}

}  // namespace

Tensor nn_group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps,
                     bool cudnn_enabled) {
  (void)cudnn_enabled;
  check_group(input, num_groups, weight, bias);
  const bool mixed = mixed_params(input, {&weight, &bias});
  check_float(input, "GroupNormKernelImpl");
  if (!mixed) {
    check_affine(weight, input);
    check_affine(bias, input);
  }
  Tensor x = dense(input);
  Tensor y = empty(x.sizes(), x.dtype());
  if (x.numel() == 0) return y;
  const NCS d = ncs(x);
  const int64_t per = d.c / num_groups, len = per * d.s, rows = d.n * num_groups;
  std::vector<double> w = channel_values(weight, d.c, 1.0), b = channel_values(bias, d.c, 0.0);
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
          const A scale = static_cast<A>(w[c] * inv), shift = static_cast<A>(b[c] - mu * w[c] * inv);
          const scalar_t* p = xp + r * len + cc * d.s;
          scalar_t* q = yp + r * len + cc * d.s;
          for (int64_t k = 0; k < d.s; ++k) q[k] = scalar_t(static_cast<A>(p[k]) * scale + shift);
        }
      }
    });
  });
  return y;
}

namespace nn_kernels {

std::array<Tensor, 3> group_norm_backward(const Tensor& grad, const Tensor& input, int64_t groups, const Tensor& weight,
                                          double eps, int first) {
  std::array<Tensor, 3> out;
  Tensor x = dense(input), g = dense_as(grad, input);
  const NCS d = ncs(x);
  const int64_t per = d.c / groups, len = per * d.s, rows = d.n * groups;
  std::vector<double> w = channel_values(weight, d.c, 1.0);
  std::vector<double> mean(static_cast<size_t>(rows)), rstd(static_cast<size_t>(rows));
  if (first == 0) out[0] = empty(x.sizes(), x.dtype());
  if (first <= 1 && weight.defined()) out[1] = empty({d.c}, param_grad_dtype(x));
  out[2] = empty({d.c}, param_grad_dtype(x));
  EMBER_DISPATCH_FLOAT(x.dtype(), "GroupNormBackwardKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* xp = x.data<scalar_t>();
    const scalar_t* gp = g.data<scalar_t>();
    scalar_t* dxp = out[0].defined() ? out[0].data<scalar_t>() : nullptr;
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
    A* dwp = out[1].defined() ? out[1].data<A>() : nullptr;  // param_grad_dtype
    A* dbp = out[2].data<A>();
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
  return out;
}

}  // namespace nn_kernels
}  // namespace ember
