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

// PyTorch's refusal of the complex dtype t for `kernel`, a kernel the CPU has no complex form of
// (floor's "not supported for complex inputs", else "\"<kernel>_cpu\" not implemented for ...").
[[noreturn]] void complex_refusal(const std::string& kernel, ScalarType t);

// |z| of each element of a contiguous complex tensor into the contiguous `out` (its real dtype).
void complex_abs(const Tensor& in, const Tensor& out);

}  // namespace ember
