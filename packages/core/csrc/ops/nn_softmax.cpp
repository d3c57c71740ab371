// softmax / log_softmax along one dim, and their backward passes (fused: one read of the
// input per pass, no temporaries). Data is viewed as (outer, size, inner), contiguous.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "../core/parallel.h"
#include "../iter/elementwise_iter.h"
#include "../kernels/cpu/vec_math.h"
#include "checks.h"
#include "nn_norm_kernels.h"
#include "ops.h"

namespace ember {

namespace {

struct Geometry {
  int64_t outer = 1, size = 1, inner = 1;
};

Geometry geometry(const Tensor& t, int64_t dim) {
  Geometry g;
  if (t.dim() == 0) return g;
  for (int64_t d = 0; d < dim; ++d) g.outer *= t.sizes()[d];
  g.size = t.sizes()[dim];
  for (int64_t d = dim + 1; d < t.dim(); ++d) g.inner *= t.sizes()[d];
  return g;
}

template <class A>
inline A fast_exp(A v) {
  return vec::exp(v);
}

// One (outer index) slab: `size` rows of `inner` contiguous values; buffers hold a row each.
template <class T, bool Log>
void softmax_slab(const T* x, T* y, int64_t size, int64_t inner, std::vector<float>& mx, std::vector<float>& sum) {
  using A = float;
  if (inner == 1) {
    A m = -std::numeric_limits<A>::infinity();
    for (int64_t d = 0; d < size; ++d) m = std::max(m, static_cast<A>(x[d]));
    if (std::isinf(m) && m < 0) m = 0;  // all -inf: exp(-inf - 0) = 0 keeps NaN out of the max shift
    A s = 0;
    if constexpr (Log) {
      for (int64_t d = 0; d < size; ++d) s += fast_exp(static_cast<A>(x[d]) - m);
      // PyTorch keeps the sum in the input's type (matters for float16 / bfloat16 only)
      const A ls = std::log(static_cast<A>(T(s)));
      for (int64_t d = 0; d < size; ++d) y[d] = T((static_cast<A>(x[d]) - m) - ls);
    } else {
      for (int64_t d = 0; d < size; ++d) {
        A e = fast_exp(static_cast<A>(x[d]) - m);
        y[d] = T(e);
        s += e;
      }
      A r = A(1) / s;
      for (int64_t d = 0; d < size; ++d) y[d] = T(static_cast<A>(y[d]) * r);
    }
    return;
  }
  std::fill(mx.begin(), mx.end(), -std::numeric_limits<A>::infinity());
  std::fill(sum.begin(), sum.end(), A(0));
  for (int64_t d = 0; d < size; ++d)
    for (int64_t i = 0; i < inner; ++i) mx[i] = std::max(mx[i], static_cast<A>(x[d * inner + i]));
  for (int64_t i = 0; i < inner; ++i)
    if (std::isinf(mx[i]) && mx[i] < 0) mx[i] = 0;
  for (int64_t d = 0; d < size; ++d)
    for (int64_t i = 0; i < inner; ++i) sum[i] += fast_exp(static_cast<A>(x[d * inner + i]) - mx[i]);
  if constexpr (Log) {
    for (int64_t i = 0; i < inner; ++i) sum[i] = std::log(static_cast<A>(T(sum[i])));
    for (int64_t d = 0; d < size; ++d)
      for (int64_t i = 0; i < inner; ++i)
        y[d * inner + i] = T((static_cast<A>(x[d * inner + i]) - mx[i]) - sum[i]);
  } else {
    for (int64_t i = 0; i < inner; ++i) sum[i] = A(1) / sum[i];
    for (int64_t d = 0; d < size; ++d)
      for (int64_t i = 0; i < inner; ++i)
        y[d * inner + i] = T(fast_exp(static_cast<A>(x[d * inner + i]) - mx[i]) * sum[i]);
  }
}

// double keeps its precision: the same loops in double.
template <bool Log>
void softmax_slab_d(const double* x, double* y, int64_t size, int64_t inner, std::vector<double>& mx,
                    std::vector<double>& sum) {
  std::fill(mx.begin(), mx.end(), -std::numeric_limits<double>::infinity());
  std::fill(sum.begin(), sum.end(), 0.0);
  for (int64_t d = 0; d < size; ++d)
    for (int64_t i = 0; i < inner; ++i) mx[i] = std::max(mx[i], x[d * inner + i]);
  for (int64_t i = 0; i < inner; ++i)
    if (std::isinf(mx[i]) && mx[i] < 0) mx[i] = 0;
  for (int64_t d = 0; d < size; ++d)
    for (int64_t i = 0; i < inner; ++i) sum[i] += std::exp(x[d * inner + i] - mx[i]);
  for (int64_t i = 0; i < inner; ++i) sum[i] = Log ? mx[i] + std::log(sum[i]) : 1.0 / sum[i];
  for (int64_t d = 0; d < size; ++d)
    for (int64_t i = 0; i < inner; ++i)
      y[d * inner + i] = Log ? x[d * inner + i] - sum[i] : std::exp(x[d * inner + i] - mx[i]) * sum[i];
}

template <class T>
void run_slabs(const T* xp, T* yp, const Geometry& g, int64_t b, int64_t e, bool log) {
  const int64_t span = g.size * g.inner;
  if constexpr (std::is_same_v<T, double>) {
    std::vector<double> mx(g.inner), sum(g.inner);
    for (int64_t o = b; o < e; ++o) {
      if (log) softmax_slab_d<true>(xp + o * span, yp + o * span, g.size, g.inner, mx, sum);
      else softmax_slab_d<false>(xp + o * span, yp + o * span, g.size, g.inner, mx, sum);
    }
  } else {
    std::vector<float> mx(g.inner), sum(g.inner);
    for (int64_t o = b; o < e; ++o) {
      if (log) softmax_slab<T, true>(xp + o * span, yp + o * span, g.size, g.inner, mx, sum);
      else softmax_slab<T, false>(xp + o * span, yp + o * span, g.size, g.inner, mx, sum);
    }
  }
}

Tensor softmax_impl(const Tensor& input, int64_t dim0, std::optional<ScalarType> dtype, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  int64_t dim = wrap_dim(dim0, std::max<int64_t>(input.dim(), 1));
  Tensor x = dtype && *dtype != input.dtype() ? to_dtype(input, *dtype) : input;
  EMBER_CHECK_NOTIMPL(is_floating(x.dtype()), "\"", log ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl",
              "\" not implemented for '", legacy_name(x.dtype()), "'");
  (void)name;
  x = contiguous(x, MemoryFormat::Contiguous);
  Tensor y = empty(x.sizes(), x.dtype());
  if (x.numel() == 0) return y;
  Geometry g = geometry(x, dim);
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.size * g.inner));
  EMBER_DISPATCH_FLOAT(x.dtype(), name, [&] {
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* yp = y.data<scalar_t>();
    parallel_for(0, g.outer, grain, [&](int64_t b, int64_t e) { run_slabs(xp, yp, g, b, e, log); });
  });
  return y;
}

}  // namespace

Tensor nn_softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(input, dim, dtype, false);
}

Tensor nn_log_softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(input, dim, dtype, true);
}

namespace nn_kernels {

// softmax: dx = y * (g - sum(g * y));  log_softmax: dx = g - exp(y) * sum(g).
Tensor softmax_backward(const Tensor& grad0, const Tensor& y0, int64_t dim0, bool log) {
  Tensor y = contiguous(y0, MemoryFormat::Contiguous);
  Tensor g = contiguous(grad0.dtype() == y.dtype() ? grad0 : to_dtype(grad0, y.dtype()), MemoryFormat::Contiguous);
  Tensor dx = empty(y.sizes(), y.dtype());
  if (y.numel() == 0) return dx;
  int64_t dim = wrap_dim(dim0, std::max<int64_t>(y.dim(), 1));
  Geometry geo = geometry(y, dim);
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, geo.size * geo.inner));
  EMBER_DISPATCH_FLOAT(y.dtype(), "softmax_backward", [&] {
    using A = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
    const scalar_t* yp = y.data<scalar_t>();
    const scalar_t* gp = g.data<scalar_t>();
    scalar_t* dp = dx.data<scalar_t>();
    const int64_t S = geo.size, I = geo.inner;
    parallel_for(0, geo.outer, grain, [&](int64_t b, int64_t e) {
      std::vector<A> acc(I);
      for (int64_t o = b; o < e; ++o) {
        const int64_t off = o * S * I;
        const scalar_t *ys = yp + off, *gs = gp + off;
        scalar_t* ds = dp + off;
        std::fill(acc.begin(), acc.end(), A(0));
        for (int64_t d = 0; d < S; ++d)
          for (int64_t i = 0; i < I; ++i) {
            A gv = static_cast<A>(gs[d * I + i]);
            acc[i] += log ? gv : gv * static_cast<A>(ys[d * I + i]);
          }
        for (int64_t d = 0; d < S; ++d)
          for (int64_t i = 0; i < I; ++i) {
            A gv = static_cast<A>(gs[d * I + i]), yv = static_cast<A>(ys[d * I + i]);
            if (log) {
              ds[d * I + i] = scalar_t(gv - vec::exp(yv) * acc[i]);
            } else {
              ds[d * I + i] = scalar_t(yv * (gv - acc[i]));
            }
          }
      }
    });
  });
  return dx;
}

}  // namespace nn_kernels
}  // namespace ember
