// Reflection and replication padding (CPU): the backend table's ShapeKernels::pad (op bodies:
// ops/nn/nn_pad_modes.cpp).
#pragma once
#include "core/tensor.h"

namespace ember::shapes {

// Forward: out = in padded, each output coordinate j of dim d reading input coordinate
// j - before[d] mirrored (reflect) or clamped into the input; backward: the gradient `out` added
// into the zeroed gradient `in` through the same map, in the output's memory order (aten's).
void pad(const Tensor& in, const Tensor& out, IntArrayRef before, bool reflect, bool backward);

}  // namespace ember::shapes
