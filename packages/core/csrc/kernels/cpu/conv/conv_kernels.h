// Convolution kernels: im2col / col2im (up to 3 spatial dims) around BLAS GEMM, reached through
// the backend table's ConvKernels. "img" / "cols": the two sides (kernels/conv_geometry.h).
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "kernels/conv_geometry.h"

namespace ember::conv {

// All tensors are contiguous with one dtype; `out` (allocated by the op) has the shape written.
// cols (N, col_c, col...) = weight (col_c, img_c/G, k...) applied to img (N, img_c, img...),
// plus bias (col_c) when defined
void img_to_cols(const Tensor& img, const Tensor& weight, const Tensor& bias, const Tensor& out, const Geometry& g);
// img (N, img_c, img...) = the adjoint of img_to_cols applied to cols
void cols_to_img(const Tensor& cols, const Tensor& weight, const Tensor& out, const Geometry& g);
// weight gradient (col_c, img_c/G, k...) of img_to_cols, given img and the cols-side gradient
void weight_grad(const Tensor& img, const Tensor& cols, const Tensor& out, const Geometry& g);

}  // namespace ember::conv
