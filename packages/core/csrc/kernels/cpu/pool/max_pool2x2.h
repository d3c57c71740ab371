// max_pool2d's vector path for 2x2 windows with stride 2 and no padding (float32, AVX-512).
#pragma once
#include <cstdint>

namespace ember::pool {

// Whether the vector path takes an H x W plane pooled to OH x OW (the window shape is the
// caller's check).
bool max2x2_applies(int64_t H, int64_t W, int64_t OH, int64_t OW);

// Contiguous planes: y and ind (flat index within the plane) as the general kernel writes them.
void max2x2_planes(const float* x, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW, float* y,
                   int64_t* ind);

}  // namespace ember::pool
