// Layer norm over the trailing n elements of each row: checks, the affine parameters as op-math
// values, and the backend's norm kernels (kernels/cpu/norm/layer_norm.cpp): forward, and one
// backward pass that makes d(input) and the weight / bias column sums together.
#include <type_traits>
#include <vector>

#include "kernels/backend.h"
#include "ops/core/internal.h"
#include "ops/nn/nn_fused_backward.h"
#include "ops/nn/nn_norm_common.h"

namespace ember {

using namespace norm_detail;

namespace {

// The affine parameter as n contiguous op-math values (A: float or double), or `fill` repeated
// when absent. A half-type parameter widens exactly.
template <class A>
std::vector<A> affine_or(const Tensor& t, int64_t n, double fill) {
  if (!t.defined()) return std::vector<A>(static_cast<size_t>(n), static_cast<A>(fill));
  Tensor d = dense(to_dtype(t, std::is_same_v<A, double> ? ScalarType::Float64 : ScalarType::Float32));
  if (!d.device().is_cpu()) d = to_device(d, cpu_device());  // a CUDA parameter: n values read here
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
  Tensor y = empty(x.sizes(), x.dtype(), x.device());
  const int64_t n = compute_numel(normalized_shape);
  const int64_t m = n ? x.numel() / n : 0;
  if (x.numel() == 0) return y;
  // the parameters' op-math type: double for float64, else float
  EMBER_DISPATCH_FLOAT(x.dtype(), "LayerNormKernelImpl", [&] {
    using A = opmath_t<scalar_t>;
    std::vector<A> w = affine_or<A>(weight, n, 1.0), b = affine_or<A>(bias, n, 0.0);
    backend(x).norm.layer_forward(x, y, m, n, eps, w.data(), b.data());
  });
  return y;
}

namespace nn_kernels {

std::array<Tensor, 3> layer_norm_backward(const Tensor& grad, const Tensor& input, int64_t n, const Tensor& weight,
                                          double eps, int first) {
  std::array<Tensor, 3> out;
  Tensor x = dense(input), g = dense_as(grad, input);
  const int64_t m = n ? x.numel() / n : 0;
  if (first == 0) out[0] = empty(x.sizes(), x.dtype(), x.device());
  if (first <= 1 && weight.defined()) out[1] = empty(weight.sizes(), param_grad_dtype(x), x.device());
  out[2] = empty(weight.defined() ? to_vec(weight.sizes()) : DimVector{n}, param_grad_dtype(x), x.device());
  EMBER_DISPATCH_FLOAT(x.dtype(), "LayerNormBackwardKernelImpl", [&] {
    std::vector<opmath_t<scalar_t>> w = affine_or<opmath_t<scalar_t>>(weight, n, 1.0);
    backend(x).norm.layer_backward(x, g, out[0], out[1], out[2], m, n, eps, w.data());
  });
  return out;
}

}  // namespace nn_kernels

}  // namespace ember
