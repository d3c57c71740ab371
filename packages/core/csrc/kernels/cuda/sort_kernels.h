// Sorting and selection on the GPU (kernels/cuda/sort_kernels.cu), the CUDA entries of SortKernels.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "kernels/sort_kind.h"

namespace ember::cuda {

void sort(const Tensor& x, int64_t rows, int64_t n, bool descending, const Tensor& values, const Tensor& indices);
void topk(const Tensor& x, int64_t rows, int64_t n, int64_t k, bool largest, bool sorted, const Tensor& values,
          const Tensor& indices);
void select(const Tensor& x, int64_t rows, int64_t n, SelectKind what, int64_t k, const char* name,
            const Tensor& values, const Tensor& indices);

}  // namespace ember::cuda
