// Resizing an out= tensor, shared by the iterators (their out= operand) and the op bodies.
#pragma once
#include "core/tensor.h"

namespace ember {

// Resize an out= tensor to `sizes` (contiguous), keeping its storage if big enough. Like aten's
// resize_output it warns when a tensor that has elements changes shape; factories (zeros, rand,
// linspace, ...) resize with aten's plain resize_, silently (warn = false).
const Tensor& resize_out(const Tensor& out, IntArrayRef sizes, bool warn = true);

}  // namespace ember
