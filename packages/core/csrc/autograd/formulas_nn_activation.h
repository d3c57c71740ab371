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

}  // namespace ember
