// grid_sample's geometry as its kernels take it: device-independent, so the backend table
// (kernels/backend.h) can name it for every device.
#pragma once
#include <cstdint>

namespace ember::pool {

// Every tensor is contiguous: input (N, C, D, H, W) with D = 1 for a 4-d input, grid
// (N, OD, OH, OW, dims) with OD = 1 for 4-d, output (N, C, OD, OH, OW).
struct GridSampleGeometry {
  int dims = 2;     // spatial dims: 2 (4-d input) or 3 (5-d input)
  int mode = 0;     // 0 bilinear, 1 nearest, 2 bicubic (PyTorch's GRID_SAMPLE_INTERPOLATION_MODES)
  int padding = 0;  // 0 zeros, 1 border, 2 reflection (GRID_SAMPLE_PADDING_MODES)
  bool align_corners = false;
  int64_t N = 0, C = 0;
  int64_t in[3] = {1, 1, 1};   // D, H, W
  int64_t out[3] = {1, 1, 1};  // OD, OH, OW
};

}  // namespace ember::pool
