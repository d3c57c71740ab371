// PoolKernels' CUDA entries (kernels/cuda/pool_kernels.cu): the contract of the CPU kernels
// (kernels/cpu/pool); the windows arrive as host arrays, the data and indices as device memory.
// max_pool2d's 2x2 fast path never applies (the general kernel serves); grid_sample raises.
#pragma once
#include <cstdint>

#include "core/scalar_type.h"
#include "kernels/avg_pool_geometry.h"
#include "kernels/pool_window.h"

namespace ember::cuda {

void max_pool_windows(ScalarType dt, const char* name, const void* x, int64_t planes, const int64_t* in,
                      const int64_t* out, const pool::Span* const* spans, void* y, int64_t* ind);
bool max_pool_2x2_applies(int64_t H, int64_t W, int64_t OH, int64_t OW);
void avg_pool_forward(const pool::AvgGeometry& g, ScalarType dt, const char* name, int64_t planes, const void* x,
                      void* y);
void avg_pool_backward(const pool::AvgGeometry& g, ScalarType dt, const char* name, int64_t planes, void* x,
                       const void* y);
void unpool_scatter(ScalarType dt, const char* name, const void* src, const int64_t* idx, int64_t planes, int64_t m,
                    void* out, int64_t plane_size);
void unpool_scatter_add(ScalarType dt, const void* src, const int64_t* idx, int64_t planes, int64_t m, void* out,
                        int64_t plane_size);

}  // namespace ember::cuda
