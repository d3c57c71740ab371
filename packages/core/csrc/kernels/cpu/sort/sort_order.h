// The order the sort kernels share (kernels/cpu/sort): NaN orders as the largest value
// (PyTorch's rule); rows are sorted as (key, index) pairs of the op-math value.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/parallel.h"
#include "core/scalar_type.h"

namespace ember::sorting {

template <class V>
inline bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>) return std::isnan(v);
  return false;
}
// Ascending order with NaN last; descending with NaN first.
template <class V>
struct Less {
  bool operator()(V a, V b) const { return (!is_nan(a) && is_nan(b)) || a < b; }
};
template <class V>
struct Greater {
  bool operator()(V a, V b) const { return (is_nan(a) && !is_nan(b)) || a > b; }
};

// Rows are sorted as (key, index) pairs: keys are the op-math value (float for half types).
template <class scalar_t>
using Key = opmath_t<scalar_t>;

}  // namespace ember::sorting
