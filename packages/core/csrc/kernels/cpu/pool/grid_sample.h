// grid_sample's kernels (forward and backward) for 4-d (bilinear / nearest / bicubic) and 5-d
// (trilinear / nearest) inputs, laid out as kernels/grid_sample_geometry.h says.
#pragma once
#include <cstdint>

#include "core/scalar_type.h"
#include "kernels/grid_sample_geometry.h"

namespace ember::pool {

// y = the input sampled at the grid's points; `name` names the op in the unsupported-dtype error.
void grid_sample_forward(ScalarType dt, const char* name, const GridSampleGeometry& g, const void* x, const void* grid,
                         void* y);
// gx (input's shape, zero-filled by the caller) and ggrid (grid's shape) from gy; either may be
// null when that gradient is not wanted.
void grid_sample_backward(ScalarType dt, const char* name, const GridSampleGeometry& g, const void* gy, const void* x,
                          const void* grid, void* gx, void* ggrid);

}  // namespace ember::pool
