// The shape ops' copies on the GPU (kernels/backend.h, ShapeKernels), as the CPU kernels
// (kernels/cpu/shape/shape_kernels.cpp): flip's gather through (negative) byte strides, the
// triangle masks of tril / triu, cat's blocks. Elements move as unsigned words of their size; a
// thread per output element, its multi-index from its linear index.
#include <algorithm>
#include <cstdint>

#include "core/error.h"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/cuda/shape_kernels.h"
#include "kernels/element_bytes.h"

namespace ember::cuda {

namespace {

constexpr int kMaxDims = 25;  // PyTorch's CUDA limit (MAX_TENSORINFO_DIMS)

// Sizes and strides (bytes or elements), innermost last, as a kernel argument.
struct Dims {
  int nd = 0;
  int64_t size[kMaxDims];
  int64_t stride[kMaxDims];
};

// Adjacent dims that step through memory as one are merged (a contiguous input becomes 1-d);
// size-1 dims are dropped.
Dims merged(IntArrayRef sizes, IntArrayRef strides, const char* what) {
  Dims d;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == 1) continue;
    if (d.nd > 0 && d.stride[d.nd - 1] == strides[k] * sizes[k]) {
      d.size[d.nd - 1] *= sizes[k];
      d.stride[d.nd - 1] = strides[k];
      continue;
    }
    EMBER_CHECK(d.nd < kMaxDims, what, ": a tensor with more than ", kMaxDims, " dims has no CUDA kernel");
    d.size[d.nd] = sizes[k];
    d.stride[d.nd++] = strides[k];
  }
  return d;
}

__device__ __forceinline__ int64_t offset_of(const Dims& d, int64_t i) {
  int64_t off = 0;
  for (int k = d.nd - 1; k >= 0; --k) {
    off += (i % d.size[k]) * d.stride[k];
    i /= d.size[k];
  }
  return off;
}

template <class W>
__global__ void gather_kernel(W* out, const char* src, int64_t n, const Dims d) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = *reinterpret_cast<const W*>(src + offset_of(d, i));
}

// Element i of contiguous matrices R x C (or of a strided t, through d's element strides).
__device__ __forceinline__ bool outside(int64_t i, int64_t R, int64_t C, int64_t k, bool lower) {
  const int64_t col = i % C, row = (i / C) % R;
  return lower ? col > row + k : col < row + k;
}

template <class W>
__global__ void triangle_kernel(W* t, int64_t n, int64_t R, int64_t C, int64_t k, bool lower) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    if (outside(i, R, C, k, lower)) t[i] = W{};
}

// Only zeros are written, so elements sharing memory (an expanded t) end as the CPU's ordered
// pass leaves them whatever the order of the threads.
template <class W>
__global__ void triangle_strided_kernel(W* t, int64_t n, const Dims d, int64_t R, int64_t C, int64_t k, bool lower) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    if (outside(i, R, C, k, lower)) t[offset_of(d, i)] = W{};
}

// outer rows of `row` words from src into dst, rows dst_row words apart.
template <class W>
__global__ void block_copy_kernel(W* dst, const W* src, int64_t n, int64_t row, int64_t dst_row) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    dst[(i / row) * dst_row + i % row] = src[i];
}

}  // namespace

void strided_gather(const Tensor& out, const char* src, IntArrayRef sizes, IntArrayRef byte_strides) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const Dims d = merged(sizes, byte_strides, "flip");
  const LaunchDevice on(out.device().index);
  by_itemsize(out.itemsize(), [&](auto w) {
    using W = decltype(w);
    gather_kernel<W><<<grid_for(n), 256, 0, current_stream(-1)>>>(reinterpret_cast<W*>(out.raw()), src, n, d);
  });
  check_launch("strided gather");
}

void triangle(const Tensor& t, int64_t k, bool lower) {
  const int64_t nd = t.dim(), R = t.size(nd - 2), C = t.size(nd - 1), n = t.numel();
  if (n == 0) return;
  k = std::clamp<int64_t>(k, -R - 1, C + 1);  // the same triangle, and row + k cannot overflow
  const LaunchDevice on(t.device().index);
  by_itemsize(t.itemsize(), [&](auto w) {
    using W = decltype(w);
    triangle_kernel<W><<<grid_for(n), 256, 0, current_stream(-1)>>>(reinterpret_cast<W*>(t.raw()), n, R, C, k, lower);
  });
  check_launch("tril/triu");
}

void triangle_strided(const Tensor& t, int64_t k, bool lower) {
  const int64_t nd = t.dim(), R = t.size(nd - 2), C = t.size(nd - 1), n = t.numel();
  if (n == 0) return;
  k = std::clamp<int64_t>(k, -R - 1, C + 1);
  Dims d;  // not merged: the kernel needs the row and column of each element from i
  EMBER_CHECK(nd <= kMaxDims, "tril/triu: a tensor with more than ", kMaxDims, " dims has no CUDA kernel");
  d.nd = static_cast<int>(nd);
  for (int64_t j = 0; j < nd; ++j) d.size[j] = t.size(j), d.stride[j] = t.stride(j);
  const LaunchDevice on(t.device().index);
  by_itemsize(t.itemsize(), [&](auto w) {
    using W = decltype(w);
    triangle_strided_kernel<W>
        <<<grid_for(n), 256, 0, current_stream(-1)>>>(reinterpret_cast<W*>(t.raw()), n, d, R, C, k, lower);
  });
  check_launch("tril/triu");
}

void cat_block(const Tensor& dst, const Tensor& src, int64_t dim, int64_t offset) {
  const int64_t len = src.size(dim);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= dst.size(d);
  for (int64_t d = dim + 1; d < dst.dim(); ++d) inner *= dst.size(d);
  const int64_t isz = static_cast<int64_t>(dst.itemsize());
  const int64_t row = len * inner * isz, dst_row = dst.size(dim) * inner * isz;  // bytes
  char* d0 = dst.raw() + offset * inner * isz;
  const char* s0 = src.raw();
  if (outer == 0 || row == 0) return;
  // The widest word (up to 8 bytes) that divides the rows, their spacing and both addresses.
  const uint64_t bits = static_cast<uint64_t>(row) | static_cast<uint64_t>(dst_row) | reinterpret_cast<uintptr_t>(d0) |
                        reinterpret_cast<uintptr_t>(s0);
  const int64_t word = (bits & 7) == 0 ? 8 : (bits & 3) == 0 ? 4 : (bits & 1) == 0 ? 2 : 1;
  const int64_t n = outer * (row / word);
  const LaunchDevice on(dst.device().index);
  by_itemsize(static_cast<size_t>(word), [&](auto w) {
    using W = decltype(w);
    block_copy_kernel<W><<<grid_for(n), 256, 0, current_stream(-1)>>>(
        reinterpret_cast<W*>(d0), reinterpret_cast<const W*>(s0), n, row / word, dst_row / word);
  });
  check_launch("cat");
}

}  // namespace ember::cuda
