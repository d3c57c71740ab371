// ComplexKernels' CUDA entries (kernels/cuda/complex_kernels.cu): the CPU kernels' contracts
// (kernels/cpu/complex/complex_pointwise.h, complex_parts.h) for the kernels the GPU has.
#pragma once
#include <cstdint>

#include "core/scalar.h"
#include "core/scalar_type.h"
#include "core/tensor.h"

namespace ember {
class ElementwiseIter;
}

namespace ember::cuda {

void complex_pointwise(const char* kernel, ElementwiseIter& it, const Scalar* params);
// complex32's few kernels (kernels/cuda/complex32_kernels.cu); false where it has none
bool complex32_pointwise(const char* kernel, const ElementwiseIter& it, const Scalar* params);
void complex_abs(const Tensor& in, const Tensor& out);
void complex_from_parts(ScalarType ct, const void* a, const void* b, void* out, int64_t n, bool polar);
void complex_conj(ScalarType ct, const void* in, void* out, int64_t n);
void complex_angle(ScalarType dt, const void* in, void* out, int64_t n);

}  // namespace ember::cuda
