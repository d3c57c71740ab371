// The shape of one convolution as its kernels see it: device-independent, so the backend
// table (kernels/backend.h) can name it for every device.
#pragma once
#include <cstdint>

namespace ember::conv {

// "img" is the side the kernel slides over (a conv's input, a transposed conv's output),
// "cols" the other side (one value per kernel position).
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

}  // namespace ember::conv
