// Shared helpers for the index ops (index.cpp, index_advanced.cpp): index
// normalisation with PyTorch's bound checks, byte-wise element moves, and the
// "line" loop that gather/scatter use (parallel over every dim but one).
#pragma once
#include <cstring>
#include <vector>

#include "core/parallel.h"
#include "core/tensor.h"

namespace ember::index_detail {

// A 16-byte element (complex128) moved as two words.
struct Bytes16 {
  uint64_t lo = 0, hi = 0;
  Bytes16() = default;
  explicit constexpr Bytes16(uint64_t v) : lo(v) {}
  bool operator==(const Bytes16& o) const { return lo == o.lo && hi == o.hi; }
};

// Calls f(T{}) with an unsigned type of the element size: copies need no dtype.
template <class F>
void by_itemsize(size_t sz, const F& f) {
  switch (sz) {
    case 1:
      f(uint8_t{});
      break;
    case 2:
      f(uint16_t{});
      break;
    case 4:
      f(uint32_t{});
      break;
    case 16:
      f(Bytes16{});
      break;
    default:
      f(uint64_t{});
      break;
  }
}

// The index values as a contiguous int64 tensor (int32/int64 accepted).
Tensor as_long_contiguous(const Tensor& index);

inline bool same_shape(IntArrayRef a, IntArrayRef b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// Sizes/strides with a 0-d tensor seen as 1-d of one element.
inline DimVector sizes1(const Tensor& t) {
  return t.dim() == 0 ? DimVector{1} : DimVector(t.sizes().begin(), t.sizes().end());
}
inline DimVector strides1(const Tensor& t) {
  return t.dim() == 0 ? DimVector{1} : DimVector(t.strides().begin(), t.strides().end());
}

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

}  // namespace ember::index_detail
