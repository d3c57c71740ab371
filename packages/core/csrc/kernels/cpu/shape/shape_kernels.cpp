// Element copies of the shape ops (kernels/backend.h, ShapeKernels): a gather through any
// (negative) strides for flip, the triangle masks of tril / triu, cat's contiguous blocks.
#include "kernels/cpu/shape/shape_kernels.h"

#include <algorithm>
#include <cstring>

#include "core/parallel.h"
#include "kernels/cpu/element_walk.h"

namespace ember::shapes {

// out (contiguous) <- the elements at src + sum(i_k * strides_k) bytes, strides may be negative.
void strided_gather(const Tensor& out, const char* src, IntArrayRef sizes, IntArrayRef byte_strides) {
  int64_t nd = static_cast<int64_t>(sizes.size());
  size_t isz = out.itemsize();
  int64_t n = out.numel();
  if (n == 0) return;
  char* dst = out.raw();
  int64_t inner = nd == 0 ? 1 : sizes[nd - 1];
  int64_t inner_st = nd == 0 ? 0 : byte_strides[nd - 1];
  int64_t rows = n / inner;
  GilRelease nogil;
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / inner), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      // Offset of row r from its multi-index over the outer dims.
      int64_t rem = r, off = 0;
      for (int64_t k = nd - 2; k >= 0; --k) {
        off += (rem % sizes[k]) * byte_strides[k];
        rem /= sizes[k];
      }
      const char* s = src + off;
      char* d = dst + r * inner * static_cast<int64_t>(isz);
      if (inner_st == static_cast<int64_t>(isz)) {
        std::memcpy(d, s, static_cast<size_t>(inner) * isz);
      } else {
        for (int64_t i = 0; i < inner; ++i) std::memcpy(d + i * isz, s + i * inner_st, isz);
      }
    }
  });
}

// Zero the part of each matrix (last two dims) of contiguous `t` outside the triangle.
void triangle(const Tensor& t, int64_t k, bool lower) {
  int64_t nd = t.dim(), R = t.size(nd - 2), C = t.size(nd - 1);
  if (t.numel() == 0) return;
  k = std::clamp<int64_t>(k, -R - 1, C + 1);  // same triangle, and i + k + 1 cannot overflow
  int64_t mats = t.numel() / (R * C);
  size_t isz = t.itemsize();
  char* base = t.raw();
  GilRelease nogil;
  parallel_for(0, mats * R, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(C, 1)), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      int64_t i = row % R;
      char* p = base + static_cast<size_t>(row * C) * isz;
      if (lower) {  // keep j <= i + k
        int64_t from = std::clamp<int64_t>(i + k + 1, 0, C);
        std::memset(p + from * isz, 0, static_cast<size_t>(C - from) * isz);
      } else {  // keep j >= i + k
        int64_t upto = std::clamp<int64_t>(i + k, 0, C);
        std::memset(p, 0, static_cast<size_t>(upto) * isz);
      }
    }
  });
}

// An expanded t (rows sharing memory) is masked in place, row after row in order, as
// PyTorch does: the memory ends as the last write left it.
void triangle_strided(const Tensor& t, int64_t k, bool lower) {
  const int64_t nd = t.dim();
  k = std::clamp<int64_t>(k, -t.size(-2) - 1, t.size(-1) + 1);
  const size_t isz = t.itemsize();
  for_each_element(t, [&](int64_t, const DimVector& idx, int64_t off) {
    const int64_t i = idx[nd - 2], j = idx[nd - 1];
    if (lower ? j > i + k : j < i + k)
      std::memset(static_cast<char*>(t.storage().data) + static_cast<size_t>(off) * isz, 0, isz);
  });
}

// Rows in parallel; one big block (nothing before dim) split across threads.
void cat_block(const Tensor& dst, const Tensor& src, int64_t dim, int64_t offset) {
  int64_t len = src.size(dim);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= dst.size(d);
  for (int64_t d = dim + 1; d < dst.dim(); ++d) inner *= dst.size(d);
  size_t isz = dst.itemsize();
  size_t row = static_cast<size_t>(len * inner) * isz;
  size_t dst_row = static_cast<size_t>(dst.size(dim) * inner) * isz;
  char* d0 = dst.raw() + static_cast<size_t>(offset * inner) * isz;
  const char* s0 = src.raw();
  GilRelease nogil;
  if (outer == 1) {
    int64_t n = static_cast<int64_t>(row);
    parallel_for(0, n, 1 << 18, [&](int64_t b, int64_t e) { std::memcpy(d0 + b, s0 + b, e - b); });
    return;
  }
  int64_t grain = std::max<int64_t>(1, (1 << 18) / static_cast<int64_t>(row + 1));
  parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) std::memcpy(d0 + i * dst_row, s0 + i * row, row);
  });
}

}  // namespace ember::shapes
