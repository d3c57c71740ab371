// cummax / cummin's values and indices: a running extremum along one dim, in one pass.
#pragma once
#include <cstdint>
#include <utility>

#include "core/tensor.h"

namespace ember {

// (values, indices), both of x's shape (values x's dtype, indices int64): at j along dim, the largest
// (greater) or smallest element of x[..., 0..j, ...] and its index; the last of ties, and NaN wins
// from its first appearance on (each later NaN taking over), as PyTorch's cummax / cummin. dim
// already wrapped; x of any real dtype or bool. No autograd (the composite keeps the graph).
std::pair<Tensor, Tensor> cum_extreme(const Tensor& x, int64_t dim, bool greater);

}  // namespace ember
