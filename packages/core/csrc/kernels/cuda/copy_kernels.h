// Copy/cast and where on the GPU (kernels/cuda/copy_kernels.cu), the CUDA entries of CopyKernels.
#pragma once

namespace ember {
class ElementwiseIter;
}

namespace ember::cuda {

void copy(ElementwiseIter& it);   // operand 1 (any dtype) into operand 0
void where(ElementwiseIter& it);  // out, bool cond, a, b (a, b of out's dtype)

}  // namespace ember::cuda
