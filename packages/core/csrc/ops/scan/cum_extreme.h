// The indices of cummax / cummin: a running arg-extremum along one dim, in one pass.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace ember {

// int64 tensor of x's shape: at j along dim, the index of the largest (greater) or smallest element
// of x[..., 0..j, ...]; the last of ties, and NaN wins from its first appearance on (each later NaN
// taking over), as PyTorch's cummax / cummin. dim already wrapped; x of any real dtype or bool.
Tensor cum_extreme_indices(const Tensor& x, int64_t dim, bool greater);

}  // namespace ember
