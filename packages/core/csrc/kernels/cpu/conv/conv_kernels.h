// Convolution kernels: im2col / col2im (up to 3 spatial dims) around BLAS GEMM.
// "img" is the side the kernel slides over (a conv's input, a transposed conv's
// output), "cols" the other side (one value per kernel position).
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace ember::conv {

struct Geometry {
  int64_t nsp = 2;  // spatial dims (1..3); unused trailing dims are size 1
  int64_t N = 0, groups = 1;
  int64_t img_c = 0, col_c = 0;  // channels on each side
  int64_t img[3] = {1, 1, 1}, col[3] = {1, 1, 1};
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};

  int64_t img_numel() const { return img[0] * img[1] * img[2]; }
  int64_t col_numel() const { return col[0] * col[1] * col[2]; }
  int64_t k_numel() const { return k[0] * k[1] * k[2]; }
};

// All tensors are contiguous with one dtype; results are new contiguous tensors.
// cols (N, col_c, col...) = weight (col_c, img_c/G, k...) applied to img (N, img_c, img...),
// plus bias (col_c) when defined
Tensor img_to_cols(const Tensor& img, const Tensor& weight, const Tensor& bias, const Geometry& g);
// img (N, img_c, img...) = the adjoint of img_to_cols applied to cols
Tensor cols_to_img(const Tensor& cols, const Tensor& weight, const Geometry& g);
// weight gradient (col_c, img_c/G, k...) of img_to_cols, given img and the cols-side gradient
Tensor weight_grad(const Tensor& img, const Tensor& cols, const Geometry& g);

}  // namespace ember::conv
