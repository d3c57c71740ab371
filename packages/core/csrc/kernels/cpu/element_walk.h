// A walk over every element of a strided tensor, for the kernels that write through an
// expanded tensor's strides (masked_fill_, tril_ / triu_ on rows sharing memory).
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace ember {

// Visits every element of `t` in row-major order as f(linear index, index tuple, element offset
// into the storage). For the in-place ops PyTorch runs through an expanded self's strides (rows
// sharing memory): the last write to a shared location stays, as there.
template <class F>
void for_each_element(const Tensor& t, F f) {
  const int64_t nd = t.dim(), n = t.numel();
  DimVector idx(static_cast<size_t>(nd), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t off = t.offset();
    for (int64_t d = 0; d < nd; ++d) off += idx[d] * t.strides()[d];
    f(e, static_cast<const DimVector&>(idx), off);
    for (int64_t d = nd - 1; d >= 0 && ++idx[d] == t.sizes()[d]; --d) idx[d] = 0;
  }
}

}  // namespace ember
