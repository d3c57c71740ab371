// Bool-mask CUDA entries (kernels/cpu/index/mask_kernels.cpp on the CPU). count_true cuts the
// mask into chunks, counts each on the device (a block per chunk) and brings the counts back:
// the op body sizes nonzero's and masked_select's results from them, and the prefix sums place
// each chunk's output. The compaction then runs a block per chunk, 256 flags at a time, each
// element's place the count of true flags before it (a warp ballot, then the warps' totals), so
// the output keeps the mask's order. masked_fill_ writes elementwise.
#include <algorithm>
#include <vector>

#include "kernels/cuda/index_device.cuh"
#include "kernels/cuda/index_kernels.h"

namespace ember::cuda {

using namespace idx;

namespace {

constexpr int kWarps = kBlock / 32;

// Chunks of whole 256-flag tiles, at most ~64K of them (their counts come back to the host).
int64_t chunk_for(int64_t n) {
  const int64_t per = (n + 65535) / 65536;
  return std::max<int64_t>(16 * kBlock, (per + kBlock - 1) / kBlock * kBlock);
}

__global__ void count_kernel(const bool* m, int64_t n, int64_t chunk, int64_t k, int64_t* counts) {
  __shared__ int64_t partial[kBlock];
  for (int64_t j = blockIdx.x; j < k; j += gridDim.x) {
    const int64_t lo = j * chunk, hi = lo + chunk < n ? lo + chunk : n;
    int64_t s = 0;
    for (int64_t i = lo + threadIdx.x; i < hi; i += kBlock) s += m[i] ? 1 : 0;
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int w = kBlock / 2; w > 0; w >>= 1) {
      if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
      __syncthreads();
    }
    if (threadIdx.x == 0) counts[j] = partial[0];
    __syncthreads();  // partial is reused by the next chunk
  }
}

// For every true flag i, in order: emit(i, its place in the compacted output).
template <class Emit>
__global__ void compact_kernel(const bool* m, int64_t n, int64_t chunk, int64_t k, const int64_t* start,
                               const Emit emit) {
  __shared__ int warp_sum[kWarps];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (int64_t j = blockIdx.x; j < k; j += gridDim.x) {
    const int64_t lo = j * chunk, hi = lo + chunk < n ? lo + chunk : n;
    int64_t base = start[j];
    for (int64_t t0 = lo; t0 < hi; t0 += kBlock) {  // the same trip count for the whole block
      const int64_t i = t0 + threadIdx.x;
      const bool f = i < hi && m[i];
      const unsigned ballot = __ballot_sync(0xffffffffu, f);
      if (lane == 0) warp_sum[w] = __popc(ballot);
      __syncthreads();
      int before = __popc(ballot & ((1u << lane) - 1u)), total = 0;
      for (int q = 0; q < kWarps; ++q) {
        if (q < w) before += warp_sum[q];
        total += warp_sum[q];
      }
      if (f) emit(i, base + before);
      base += total;
      __syncthreads();  // warp_sum is rewritten by the next tile
    }
  }
}

struct NonzeroEmit {
  int64_t* out;
  int nd;
  int64_t size[kMaxDims];
  __device__ void operator()(int64_t i, int64_t pos) const {
    int64_t rem = i;
    for (int d = nd - 1; d >= 0; --d) {
      out[pos * nd + d] = rem % size[d];
      rem /= size[d];
    }
  }
};
template <class U>
struct SelectEmit {
  const U* x;
  U* out;
  __device__ void operator()(int64_t i, int64_t pos) const { out[pos] = x[i]; }
};
template <class U>
struct ScatterEmit {
  U* dst;
  const U* src;
  __device__ void operator()(int64_t i, int64_t pos) const { dst[i] = src[pos]; }
};

template <class Emit>
void compact(const Tensor& mask, const indexing::MaskChunks& c, const Emit& emit) {
  const int64_t k = static_cast<int64_t>(c.start.size()) - 1;
  if (k <= 0 || c.count == 0) return;
  const int device = mask.device().index;
  const LaunchDevice on(device);
  DeviceArray<int64_t> start(k + 1, device);
  start.upload(c.start.data(), k + 1);
  compact_kernel<Emit>
      <<<capped_blocks(k), kBlock, 0, current_stream(-1)>>>(mask.data<bool>(), c.n, c.chunk, k, start.get(), emit);
  check_launch("mask compaction kernel");
}

template <class U>
__global__ void masked_fill_kernel(U* dst, const bool* m, U value, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    if (m[i]) dst[i] = value;
}

struct Strided {
  int nd;
  int64_t size[kMaxDims], stride[kMaxDims];
};

// Element e (row-major over self's shape) at its strided place; aliases take the same value.
template <class U>
__global__ void masked_fill_strided_kernel(U* self, const bool* m, U value, const Strided g, int64_t n) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < n; e += int64_t(gridDim.x) * blockDim.x) {
    if (!m[e]) continue;
    int64_t rem = e, off = 0;
    for (int d = g.nd - 1; d >= 0; --d) {
      off += (rem % g.size[d]) * g.stride[d];
      rem /= g.size[d];
    }
    self[off] = value;
  }
}

}  // namespace

void count_true(const Tensor& mask, indexing::MaskChunks& c) {
  const int64_t n = mask.numel();
  c.n = n;
  c.chunk = chunk_for(n);
  const int64_t k = (n + c.chunk - 1) / c.chunk;
  c.start.assign(static_cast<size_t>(k + 1), 0);
  c.count = 0;
  if (k == 0) return;
  const int device = mask.device().index;
  const LaunchDevice on(device);
  DeviceArray<int64_t> counts(k, device);
  count_kernel<<<capped_blocks(k), kBlock, 0, current_stream(-1)>>>(mask.data<bool>(), n, c.chunk, k, counts.get());
  check_launch("mask count kernel");
  std::vector<int64_t> host(static_cast<size_t>(k));
  counts.download(host.data(), k);
  for (int64_t j = 0; j < k; ++j) c.start[j + 1] = c.start[j] + host[j];
  c.count = c.start[k];
}

void nonzero(const Tensor& mask, IntArrayRef sizes, const indexing::MaskChunks& c, const Tensor& out) {
  check_dims(static_cast<int64_t>(sizes.size()), "nonzero");
  NonzeroEmit e{};
  e.out = out.data<int64_t>();
  e.nd = static_cast<int>(sizes.size());
  for (int d = 0; d < e.nd; ++d) e.size[d] = sizes[d];
  if (e.nd == 0) return;  // a 0-d input: (count, 0) has nothing to write
  compact(mask, c, e);
}

void masked_select(const Tensor& x, const Tensor& mask, const indexing::MaskChunks& c, const Tensor& out) {
  by_itemsize(x.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    compact(mask, c, SelectEmit<U>{reinterpret_cast<const U*>(x.raw()), reinterpret_cast<U*>(out.raw())});
  });
}

void masked_scatter(const Tensor& dst, const Tensor& mask, const Tensor& src) {
  indexing::MaskChunks c;
  count_true(mask, c);
  by_itemsize(dst.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    compact(mask, c, ScatterEmit<U>{reinterpret_cast<U*>(dst.raw()), reinterpret_cast<const U*>(src.raw())});
  });
}

void masked_fill(const Tensor& dst, const Tensor& mask, const Tensor& value) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  const LaunchDevice on(dst.device().index);
  by_itemsize(dst.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    masked_fill_kernel<U><<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(reinterpret_cast<U*>(dst.raw()),
                                                                            mask.data<bool>(), value_of<U>(value), n);
  });
  check_launch("masked_fill kernel");
}

void masked_fill_strided(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const int64_t n = self.numel();
  if (n == 0) return;
  check_dims(self.dim(), "masked_fill_");
  Strided g{};
  g.nd = static_cast<int>(self.dim());
  for (int d = 0; d < g.nd; ++d) {
    g.size[d] = self.sizes()[d];
    g.stride[d] = self.strides()[d];
  }
  const LaunchDevice on(self.device().index);
  by_itemsize(self.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    masked_fill_strided_kernel<U><<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(
        reinterpret_cast<U*>(self.raw()), mask.data<bool>(), value_of<U>(value), g, n);
  });
  check_launch("masked_fill kernel");
}

}  // namespace ember::cuda
