// Layer norm over the trailing n elements of each row: checks, the affine parameters as op-math
// values on the input's device, and the backend's norm kernels (kernels/cpu/norm/layer_norm.cpp):
// forward, and one backward pass that makes d(input) and the weight / bias column sums together.
#include "kernels/backend.h"
#include "ops/core/internal.h"
#include "ops/nn/nn_fused_backward.h"
#include "ops/nn/nn_norm_common.h"

namespace ember {

using namespace norm_detail;

namespace {

// The affine parameter as n contiguous op-math values (float32 or float64) on x's device, or
// `fill` repeated when absent. A half-type parameter widens exactly.
Tensor affine_or(const Tensor& t, int64_t n, double fill, const Tensor& x) {
  const ScalarType a = x.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  return t.defined() ? dense_on(t, a, x) : full({n}, Scalar(fill), a, x.device());
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
  const Tensor w = affine_or(weight, n, 1.0, x), b = affine_or(bias, n, 0.0, x);
  backend(x).norm.layer_forward(x, y, m, n, eps, w.raw(), b.raw());
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
  const Tensor w = affine_or(weight, n, 1.0, x);
  backend(x).norm.layer_backward(x, g, out[0], out[1], out[2], m, n, eps, w.raw());
  return out;
}

}  // namespace nn_kernels

}  // namespace ember
