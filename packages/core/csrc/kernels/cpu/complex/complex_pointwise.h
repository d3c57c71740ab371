// Pointwise kernels on complex64 / complex128 operands, over an ElementwiseIter whose compute
// dtype is complex. The generated op bodies (ops_pointwise.cpp) hand their iterator here when
// the compute dtype is complex; a kernel without a complex form raises PyTorch's
// "\"<kernel>_cpu\" not implemented for 'ComplexFloat'".
#pragma once
#include <string>

#include "core/scalar.h"
#include "core/tensor.h"

namespace ember {

class ElementwiseIter;

// Runs the complex form of the pointwise kernel `kernel` (ops.yaml's kernel name).
void complex_pointwise(const char* kernel, ElementwiseIter& it, const Scalar* params);

// PyTorch's refusals of complex operands that are the op's own, the same on every device (floor's
// "is not supported for complex inputs", deg2rad's, ...); returns where `kernel` has none.
void refuse_on_every_device(const std::string& kernel);

// |z| of each element of a contiguous complex tensor into the contiguous `out` (its real dtype).
void complex_abs(const Tensor& in, const Tensor& out);

}  // namespace ember
