// Reductions on the GPU (kernels/cuda/reduce_kernels.cu), the CUDA entries of ReduceKernels.reduce
// and .moments.
#pragma once
#include "kernels/reduce_kind.h"

namespace ember {
struct ReduceIter;
class Tensor;
}  // namespace ember

namespace ember::cuda {

void reduce(ReduceIter& it, ReduceKind kind);
void moments(ReduceIter& it, const Tensor& mean_out, double divisor, bool take_sqrt);

}  // namespace ember::cuda
