// Element copies of the shape ops (kernels/backend.h, ShapeKernels): a gather through any
// (negative) strides for flip, the triangle masks of tril / triu, cat's contiguous blocks.
#include "kernels/cpu/shape/shape_kernels.h"

#include <algorithm>
#include <cstring>

#include "core/parallel.h"
#include "kernels/cpu/element_walk.h"
#include "kernels/cpu/isa_variants.h"
#include "kernels/cpu/loops.h"
#include "kernels/element_bytes.h"

namespace ember::shapes {

namespace {

// Rows of strided_gather: the last dim of out, read from src through byte strides.
template <class T>
struct GatherRows {
  T* dst;
  const char* src;
  const int64_t* sizes;  // nd sizes
  const int64_t* bst;    // nd byte strides (may be negative)
  int64_t nd, inner, inner_st;
};

// One row: a plain copy, a reversal (flip of the last dim; typed, so the vectoriser turns it
// into loads and lane shuffles) or a strided walk.
template <class T>
EMBER_VEC_INLINE void copy_row(T* __restrict d, const char* s, int64_t n, int64_t st) {
  constexpr int64_t w = static_cast<int64_t>(sizeof(T));
  if (st == w) {
    std::memcpy(d, s, static_cast<size_t>(n) * sizeof(T));
  } else if (st == -w) {
    const T* __restrict r = reinterpret_cast<const T*>(s);
    for (int64_t i = 0; i < n; ++i) d[i] = r[-i];
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = *reinterpret_cast<const T*>(s + i * st);
  }
}

// Rows [b, e): the outer multi-index is counted up row by row (one division per range).
template <class T>
EMBER_VEC_INLINE void gather_rows(const GatherRows<T>& p, int64_t b, int64_t e) {
  const int64_t outer = p.nd - 1;
  DimVector idx(static_cast<size_t>(std::max<int64_t>(outer, 0)), 0);
  int64_t rem = b, off = 0;
  for (int64_t k = outer - 1; k >= 0; --k) {
    idx[k] = rem % p.sizes[k];
    rem /= p.sizes[k];
    off += idx[k] * p.bst[k];
  }
  for (int64_t r = b; r < e; ++r) {
    copy_row<T>(p.dst + r * p.inner, p.src + off, p.inner, p.inner_st);
    for (int64_t k = outer - 1; k >= 0; --k) {  // next row: carry through the outer dims
      off += p.bst[k];
      if (++idx[k] < p.sizes[k]) break;
      off -= p.sizes[k] * p.bst[k];
      idx[k] = 0;
    }
  }
}

EMBER_ISA_VARIANTS(gather_rows, GatherRows)

}  // namespace

// out (contiguous) <- the elements at src + sum(i_k * strides_k) bytes, strides may be negative.
void strided_gather(const Tensor& out, const char* src, IntArrayRef sizes, IntArrayRef byte_strides) {
  int64_t nd = static_cast<int64_t>(sizes.size());
  int64_t n = out.numel();
  if (n == 0) return;
  int64_t inner = nd == 0 ? 1 : sizes[nd - 1];
  int64_t inner_st = nd == 0 ? 0 : byte_strides[nd - 1];
  int64_t rows = n / inner;
  GilRelease nogil;
  by_itemsize(out.itemsize(), [&](auto tag) {
    using T = decltype(tag);
    GatherRows<T> p{reinterpret_cast<T*>(out.raw()), src,   sizes.begin(), byte_strides.begin(),
                    std::max<int64_t>(nd, 1),        inner, inner_st};
    auto kernel = gather_rows_best<T>();
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / inner), [&](int64_t b, int64_t e) { kernel(p, b, e); });
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
