// Reductions on the GPU (kernels/cuda/reduce_kernels.cu), the CUDA entry of ReduceKernels.reduce.
#pragma once
#include "kernels/reduce_kind.h"

namespace ember {
struct ReduceIter;
}

namespace ember::cuda {

void reduce(ReduceIter& it, ReduceKind kind);

}  // namespace ember::cuda
