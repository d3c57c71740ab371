// Shared by the convolution ops (nn_conv.cpp) and their derivatives (formulas_nn_conv.cpp).
#pragma once
#include <string_view>

#include "core/tensor.h"
#include "kernels/conv_geometry.h"

namespace ember::conv {

// A per-dimension argument: one value repeats over the `n` spatial dims, else it needs n values.
DimVector expand_arg(IntArrayRef v, int64_t n, const char* name);
// The plain kernel passes with no autograd (contiguous copies / float32 for half types inside);
// bias may be undefined.
Tensor forward(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
               IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups);
// Gradient of the weight of convolution(input, weight, ...) given the output gradient.
Tensor weight_backward(const Tensor& grad, const Tensor& input, IntArrayRef weight_sizes, IntArrayRef stride,
                       IntArrayRef padding, IntArrayRef dilation, bool transposed, int64_t groups);
// padding='same' / 'valid' as numbers: symmetric part per dim and the extra right padding
// an even kernel needs (PyTorch pads the input by that first).
void same_padding(std::string_view padding, const Tensor& weight, IntArrayRef stride, IntArrayRef dilation,
                  DimVector& sym, DimVector& extra);

}  // namespace ember::conv
