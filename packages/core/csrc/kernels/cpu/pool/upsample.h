// Upsampling kernels (CPU): the backend table's UpsampleKernels entry.
#pragma once
#include <cstdint>

#include "core/scalar_type.h"
#include "kernels/upsample_geometry.h"

namespace ember::upsample {

// planes (batch x channel) of g.in into y (forward; x, y contiguous of dtype dt), or, backward,
// the gradient planes y (g.out) accumulated into the zeroed x (g.in). cl: aten's channels-last
// bilinear form (forward only).
void upsample(const Geometry& g, ScalarType dt, int64_t planes, char* x, char* y, bool backward, const ClForm& cl);

}  // namespace ember::upsample
