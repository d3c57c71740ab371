// ConvKernels' CUDA entries (kernels/cuda/conv_kernels.cu): the contract of the CPU kernels
// (kernels/cpu/conv/conv_kernels.h), float32 and float64.
#pragma once

#include "core/tensor.h"
#include "kernels/conv_geometry.h"

namespace ember::cuda {

void conv_img_to_cols(const Tensor& img, const Tensor& weight, const Tensor& bias, const Tensor& out,
                      const conv::Geometry& g);
void conv_cols_to_img(const Tensor& cols, const Tensor& weight, const Tensor& out, const conv::Geometry& g);
void conv_weight_grad(const Tensor& img, const Tensor& cols, const Tensor& out, const conv::Geometry& g);

}  // namespace ember::cuda
