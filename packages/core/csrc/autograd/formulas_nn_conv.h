// Derivative helpers for the convolution / padding ops (ops/nn_conv.yaml).
#pragma once
#include <string_view>

#include "../core/tensor.h"

namespace ember {

// which: 0 input, 1 weight, 2 bias. Input gradients are convolutions again (transposed <->
// plain); the weight gradient uses the fast kernel, or a convolution when the graph is kept.
Tensor conv_backward(int which, const Tensor& grad, const Tensor& input, const Tensor& weight, IntArrayRef stride,
                     IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                     int64_t groups);
// conv*d with padding='same' / 'valid'.
Tensor conv_str_backward(int which, const Tensor& grad, const Tensor& input, const Tensor& weight, IntArrayRef stride,
                         std::string_view padding, IntArrayRef dilation, int64_t groups);
Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad);

}  // namespace ember
