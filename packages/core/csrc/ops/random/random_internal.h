// Shared by the random ops' bodies (random*.cpp): the dtype limits their checks use, and filling
// a tensor in the order PyTorch's TensorIterator visits it (the samplers themselves are the
// backend's random family, kernels/cpu/random).
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/half.h"
#include "core/tensor.h"
#include "iter/elementwise_iter.h"
#include "kernels/random_units.h"

namespace ember::rng {

// Largest finite value of a floating dtype (numeric_limits knows no Half/BFloat16).
template <class T>
constexpr double float_max() {
  if constexpr (std::is_same_v<T, Half>) return 65504.0;
  else if constexpr (std::is_same_v<T, BFloat16>) return 3.3895313892515355e38;
  else return static_cast<double>(std::numeric_limits<T>::max());
}

// Dense strides that lay self's dims out in the order PyTorch's TensorIterator
// walks them (smallest stride innermost), so position k of such a buffer is the
// k-th element visited -- and the k-th number drawn.
DimVector iteration_strides(const Tensor& self);

// Fill self in iteration order: write(ptr, n) produces n contiguous values of
// self's dtype; non-contiguous targets go through a dense temporary.
template <class Write>
void fill_in_order(const Tensor& self, const Write& write) {
  if (self.is_contiguous()) {
    write(self.raw(), self.numel());
    return;
  }
  Tensor tmp = empty_strided(self.sizes(), iteration_strides(self), self.dtype(), self.device());
  write(tmp.raw(), tmp.numel());
  copy_into(self, tmp);
}

}  // namespace ember::rng
