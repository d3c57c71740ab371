// Layer norm over the trailing n elements of each row: forward, and one backward pass that
// makes d(input) and the weight / bias column sums together (x and grad read once).
// Row sums: norm_detail::blocked_sum. Row kernels are compiled for AVX-512 and AVX2 as well
// and picked at run time.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/isa_variants.h"
#include "ops/nn/nn_fused_backward.h"
#include "ops/nn/nn_norm_common.h"

namespace ember {

using namespace norm_detail;

namespace {

// Rows r0..r1 of one pass. w / b always point at n op-math values (ones / zeros when absent;
// float32 parameters of a half-type input, aten's mixed type, read as they are).
template <class T>
struct Rows {
  int64_t n;
  double eps;
  const T* x;
  const opmath_t<T>*w, *b;
  const T* g;
  T *y, *dx;
  opmath_t<T>*dw, *db;  // this chunk's column sums (backward), nullptr when not wanted
};

template <class T>
EMBER_VEC_INLINE void row_stats(const T* x, int64_t n, double eps, opmath_t<T>& mu, opmath_t<T>& rs) {
  using A = opmath_t<T>;
  const double mean = blocked_sum<A>(n, [&](int64_t j) { return static_cast<A>(x[j]); }) / static_cast<double>(n);
  const A m = static_cast<A>(mean);
  const double var = blocked_sum<A>(n,
                                    [&](int64_t j) {
                                      A d = static_cast<A>(x[j]) - m;
                                      return d * d;
                                    }) /
                     static_cast<double>(n);
  mu = m;
  rs = static_cast<A>(1.0 / std::sqrt(var + eps));
}

template <class T>
EMBER_VEC_INLINE void forward_rows(const Rows<T>& p, int64_t r0, int64_t r1) {
  using A = opmath_t<T>;
  const int64_t n = p.n;
  for (int64_t r = r0; r < r1; ++r) {
    const T* x = p.x + r * n;
    T* y = p.y + r * n;
    A mu, rs;
    row_stats(x, n, p.eps, mu, rs);
#pragma omp simd
    for (int64_t j = 0; j < n; ++j)
      y[j] = static_cast<T>((static_cast<A>(x[j]) - mu) * rs * static_cast<A>(p.w[j]) + static_cast<A>(p.b[j]));
  }
}

template <class T>
EMBER_VEC_INLINE void backward_rows(const Rows<T>& p, int64_t r0, int64_t r1) {
  using A = opmath_t<T>;
  const int64_t n = p.n;
  const A inv_n = A(1) / static_cast<A>(n);
  for (int64_t r = r0; r < r1; ++r) {
    const T *x = p.x + r * n, *g = p.g + r * n;
    const A* w = p.w;
    A mu, rs;
    row_stats(x, n, p.eps, mu, rs);
    if (p.dx) {
      // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), dxhat = g * w
      const A c1 =
          static_cast<A>(blocked_sum<A>(n, [&](int64_t j) { return static_cast<A>(g[j]) * static_cast<A>(w[j]); })) *
          inv_n;
      const A c2 = static_cast<A>(blocked_sum<A>(n,
                                                 [&](int64_t j) {
                                                   return static_cast<A>(g[j]) * static_cast<A>(w[j]) *
                                                          (static_cast<A>(x[j]) - mu) * rs;
                                                 })) *
                   inv_n;
      T* dx = p.dx + r * n;
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) {
        const A xh = (static_cast<A>(x[j]) - mu) * rs;
        dx[j] = static_cast<T>(rs * (static_cast<A>(g[j]) * static_cast<A>(w[j]) - c1 - xh * c2));
      }
    }
    if (p.dw) {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) p.dw[j] += static_cast<A>(g[j]) * (static_cast<A>(x[j]) - mu) * rs;
    }
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) p.db[j] += static_cast<A>(g[j]);
  }
}

EMBER_ISA_VARIANTS(forward_rows, Rows)
EMBER_ISA_VARIANTS(backward_rows, Rows)

// The affine parameter as n contiguous op-math values (A: float or double), or `fill` repeated
// when absent. A half-type parameter widens exactly.
template <class A>
std::vector<A> affine_or(const Tensor& t, int64_t n, double fill) {
  if (!t.defined()) return std::vector<A>(static_cast<size_t>(n), static_cast<A>(fill));
  Tensor d = dense(to_dtype(t, std::is_same_v<A, double> ? ScalarType::Float64 : ScalarType::Float32));
  const A* p = d.data<A>();
  return std::vector<A>(p, p + n);
}

void check_layer_shape(const Tensor& x, IntArrayRef shape, const Tensor& w, const Tensor& b) {
  const int64_t k = static_cast<int64_t>(shape.size());
  EMBER_CHECK(k >= 1,
              "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
              "element, but got normalized_shape = ",
              shape_str(shape));
  for (const Tensor* t : {&w, &b}) {
    if (t->defined())
      EMBER_CHECK(to_vec(t->sizes()) == to_vec(shape), "Expected ", t == &w ? "weight" : "bias",
                  " to be of same shape as normalized_shape, but got ", t == &w ? "weight" : "bias", " of shape ",
                  shape_str(t->sizes()), " and normalized_shape = ", shape_str(shape));
  }
  bool ok = x.dim() >= k;
  for (int64_t i = 0; ok && i < k; ++i) ok = x.sizes()[x.dim() - k + i] == shape[i];
  if (!ok) {
    std::string star;
    for (int64_t v : shape) star += ", " + std::to_string(v);
    EMBER_CHECK(false, "Given normalized_shape=", shape_str(shape), ", expected input with shape [*", star,
                "], but got input of size", shape_str(x.sizes()));
  }
}

int64_t row_grain(int64_t n) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)); }

}  // namespace

Tensor nn_layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                     double eps, bool cudnn_enable) {
  (void)cudnn_enable;
  check_layer_shape(input, normalized_shape, weight, bias);
  const bool mixed = mixed_params(input, {&weight, &bias});
  check_float(input, "LayerNormKernelImpl");
  if (!mixed) {
    check_affine(weight, input);
    check_affine(bias, input);
  }
  Tensor x = dense(input);
  Tensor y = empty(x.sizes(), x.dtype());
  const int64_t n = compute_numel(normalized_shape);
  const int64_t m = n ? x.numel() / n : 0;
  if (x.numel() == 0) return y;
  EMBER_DISPATCH_FLOAT(x.dtype(), "LayerNormKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    std::vector<A> w = affine_or<A>(weight, n, 1.0), b = affine_or<A>(bias, n, 0.0);
    Rows<scalar_t> p{n,       eps,    x.data<scalar_t>(), w.data(), b.data(), nullptr, y.data<scalar_t>(), nullptr,
                     nullptr, nullptr};
    auto fn = forward_rows_best<scalar_t>();
    GilRelease nogil;
    parallel_for(0, m, row_grain(n), [&](int64_t r0, int64_t r1) { fn(p, r0, r1); });
  });
  return y;
}

namespace nn_kernels {

std::array<Tensor, 3> layer_norm_backward(const Tensor& grad, const Tensor& input, int64_t n, const Tensor& weight,
                                          double eps, int first) {
  std::array<Tensor, 3> out;
  Tensor x = dense(input), g = dense_as(grad, input);
  const int64_t m = n ? x.numel() / n : 0;
  if (first == 0) out[0] = empty(x.sizes(), x.dtype());
  if (first <= 1 && weight.defined()) out[1] = empty(weight.sizes(), param_grad_dtype(x));
  out[2] = empty(weight.defined() ? to_vec(weight.sizes()) : DimVector{n}, param_grad_dtype(x));
  EMBER_DISPATCH_FLOAT(x.dtype(), "LayerNormBackwardKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    std::vector<A> w = affine_or<A>(weight, n, 1.0);
    const bool want_dw = out[1].defined();
    std::vector<A> dw(static_cast<size_t>(n), A(0)), db(static_cast<size_t>(n), A(0));
    std::mutex mu;
    auto fn = backward_rows_best<scalar_t>();
    {
      GilRelease nogil;
      parallel_for(0, m, row_grain(n), [&](int64_t r0, int64_t r1) {
        // each chunk sums its own columns, then adds them in (n per chunk: cheap)
        std::vector<A> cw(want_dw ? static_cast<size_t>(n) : 0, A(0)), cb(static_cast<size_t>(n), A(0));
        Rows<scalar_t> p{n,
                         eps,
                         x.data<scalar_t>(),
                         w.data(),
                         nullptr,
                         g.data<scalar_t>(),
                         nullptr,
                         out[0].defined() ? out[0].data<scalar_t>() : nullptr,
                         want_dw ? cw.data() : nullptr,
                         cb.data()};
        fn(p, r0, r1);
        std::lock_guard<std::mutex> lock(mu);
        for (int64_t j = 0; j < n; ++j) {
          db[j] += cb[j];
          if (want_dw) dw[j] += cw[j];
        }
      });
    }
    // param_grad_dtype: the op-math type itself
    std::copy(db.begin(), db.end(), out[2].data<A>());
    if (want_dw) std::copy(dw.begin(), dw.end(), out[1].data<A>());
  });
  return out;
}

}  // namespace nn_kernels

}  // namespace ember
