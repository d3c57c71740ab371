// Op-layer helpers for complex operands that the generated pointwise bodies call
// (ops_pointwise.cpp; see codegen/gen.py gen_ops_pointwise).
#pragma once
#include "core/tensor.h"

namespace ember {

// abs / abs_ / abs(out=) of a complex tensor: a real result (PyTorch refuses the in-place form).
Tensor complex_abs_op(const Tensor& out, bool inplace, const Tensor& input);

}  // namespace ember
