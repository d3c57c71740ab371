// Derivative helpers of the activation kernels (ops/nn_activation.yaml).
#pragma once
#include <string_view>

#include "../core/scalar.h"
#include "../core/tensor.h"

namespace ember {

// d(gelu_backward)/d(self) applied to gg: gg * grad_output * gelu''(self), from ag:: ops so that
// it is differentiable again.
Tensor gelu_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate);

// d(softplus_backward)/d(self) applied to gg: gg * grad_output * beta s (1 - s) below the threshold,
// s = sigmoid(self * beta) (PyTorch's softplus_double_backward).
Tensor softplus_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self, const Scalar& beta,
                                const Scalar& threshold);

// d(silu_backward)/d(self) applied to gg: gg * grad_output * s (1 - s) (2 + x (1 - 2 s)), s = sigmoid(self).
Tensor silu_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self);

// d(hardswish_backward)/d(self) applied to gg: gg * grad_output / 3 inside (-3, 3), else 0.
Tensor hardswish_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self);

// d(elu_backward)/d(self_or_result) applied to gg (aten's elu_double_backward): from the result,
// gg * grad_output * input_scale below 0; from the input, elu_backward of that product, below 0.
Tensor elu_double_backward(const Tensor& gg, const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result);

// glu_backward's derivatives (aten's glu_double_backward and glu_double_backward_grad_output): with
// a, b the halves of self, s = sigmoid(b) and gg's halves gg_a, gg_b, d/d(self) is
// [gg_b g s (1 - s), gg_b g a s (1 - s) (1 - 2 s) + gg_a g s (1 - s)], d/d(grad_output) gg_a s + gg_b s (1 - s) a.
Tensor glu_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self, int64_t dim);
Tensor glu_double_backward_grad_output(const Tensor& gg, const Tensor& self, int64_t dim);

// log_sigmoid's buffer e^-|self| (the kernel of ops/core/pointwise_handwritten.cpp; not differentiated).
Tensor log_sigmoid_buffer(const Tensor& self);
// d(log_sigmoid_backward)/d(self) applied to gg: gg * grad_output * (s - 1) s, s = sigmoid(self).
Tensor log_sigmoid_double_backward(const Tensor& gg, const Tensor& grad_output, const Tensor& self);

// celu's input_scale in its derivative: 1.0 / alpha.toFloat() as aten's (alpha rounded to float first).
Scalar celu_grad_input_scale(const Scalar& alpha);

// _prelu_kernel_backward's derivatives, from its outputs' gradients grads (grad_input's, grad_weight's;
// either undefined): grad_input = x > 0 ? g : w g and grad_weight = x > 0 ? 0 : x g, differentiated
// to g, to x and to w (the last two in the broadcast shape; autograd sums them down), x = 0 on the
// positive side as in PyTorch's formulas.
Tensor prelu_backward_grad_output(const TensorList& grads, const Tensor& grad_output, const Tensor& self,
                                  const Tensor& weight);
Tensor prelu_backward_self(const TensorList& grads, const Tensor& grad_output, const Tensor& self);
Tensor prelu_backward_weight(const TensorList& grads, const Tensor& grad_output, const Tensor& self);

}  // namespace ember
