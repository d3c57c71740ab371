// grid_sample on the GPU (kernels/cuda/grid_sample_kernels.cu): PoolKernels' grid_sample entries,
// every pointer device memory, laid out as kernels/grid_sample_geometry.h says.
#pragma once
#include "core/scalar_type.h"
#include "kernels/grid_sample_geometry.h"

namespace ember::cuda {

void grid_sample(ScalarType dt, const char* name, const pool::GridSampleGeometry& g, const void* x, const void* grid,
                 void* y);
void grid_sample_backward(ScalarType dt, const char* name, const pool::GridSampleGeometry& g, const void* gy,
                          const void* x, const void* grid, void* gx, void* ggrid);

}  // namespace ember::cuda
