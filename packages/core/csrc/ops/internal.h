// Helpers shared by the hand-written op files (not part of the op API).
#pragma once
#include <optional>

#include "../core/memory_format.h"
#include "../core/tensor.h"

namespace ember {

// An uninitialised tensor shaped like `t`; keeps a dense non-contiguous layout
// (e.g. transposed) unless a memory format says otherwise.
Tensor empty_with_layout_of(const Tensor& t, ScalarType dtype, std::optional<MemoryFormat> mf);
// Resize an out= tensor to `sizes` (contiguous), keeping its storage if big enough.
const Tensor& resize_out(const Tensor& out, IntArrayRef sizes);

}  // namespace ember
