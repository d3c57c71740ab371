// hash_tensor's reduction: the xor of the elements' 64-bit patterns, in one pass.
#pragma once

#include "core/tensor.h"

namespace ember {

// x (real or bool) reduced over dims (all of them where empty) by xor of each element's bits as
// float64 (floating x) or int64 (the others): a float64 / int64 tensor of those bits (the caller
// views it as uint64). No autograd.
Tensor xor_sum(const Tensor& x, IntArrayRef dims, bool keepdim);

}  // namespace ember
