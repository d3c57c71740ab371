// Resizing an out= tensor, shared by the iterators (their out= operand) and the op bodies.
#pragma once
#include "core/tensor.h"

namespace ember {

// Resize an out= tensor to `sizes` (contiguous), keeping its storage if big enough.
const Tensor& resize_out(const Tensor& out, IntArrayRef sizes);

}  // namespace ember
