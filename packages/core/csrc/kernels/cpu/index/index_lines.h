// The "line" loop of gather / scatter: parallel over every dim but one.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>

#include "core/parallel.h"
#include "core/tensor.h"

namespace ember::indexing {

// For every position of `sizes` with dim `dim` fixed at 0, calls
// f(off[0..K), len) where off[k] = sum of coordinate * strides[k] over the
// other dims. Lines are independent, so the calls run in parallel.
template <size_t K, class F>
void for_each_line(const DimVector& sizes, int64_t dim, const std::array<DimVector, K>& strides, int64_t grain,
                   const F& f) {
  int64_t nd = static_cast<int64_t>(sizes.size());
  int64_t len = sizes[dim], lines = 1;
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim) lines *= sizes[d];
  if (len == 0 || lines == 0) return;
  int64_t g = std::max<int64_t>(1, grain / std::max<int64_t>(len, 1));
  parallel_for(0, lines, g, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      std::array<int64_t, K> off{};
      int64_t rem = p;
      for (int64_t d = nd - 1; d >= 0; --d) {
        if (d == dim) continue;
        int64_t c = rem % sizes[d];
        rem /= sizes[d];
        for (size_t k = 0; k < K; ++k) off[k] += c * strides[k][d];
      }
      f(off, len);
    }
  });
}

}  // namespace ember::indexing
