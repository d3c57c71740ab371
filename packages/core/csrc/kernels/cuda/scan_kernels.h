// Scans on the GPU (kernels/cuda/scan_kernels.cu): ReduceKernels.cumulative (cumsum / cumprod)
// and ScanKernels' logcumsumexp and cummax / cummin (values and indices).
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace ember::cuda {

void cumulative(const Tensor& in, const Tensor& out, int64_t dim, bool is_prod);
void logcumsumexp(const Tensor& x, const Tensor& out, int64_t outer, int64_t n, int64_t inner);
void cum_extreme(const Tensor& x, const Tensor& values, const Tensor& indices, int64_t outer, int64_t n, int64_t inner,
                 bool greater);

}  // namespace ember::cuda
