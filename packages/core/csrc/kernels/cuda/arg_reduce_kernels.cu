// argmax / argmin along the last dim of a contiguous [outer, n] tensor on the GPU, with the CPU
// kernel's answers (kernels/cpu/reduce/arg_reduce_scan_kernels.cpp): the first NaN wins over
// everything, else the first of the tied extremes. Both rules make the combine of two
// (value, index) candidates associative and commutative, so a row may be split between threads
// and combined in any tree: short rows take a thread each, long ones a block of 256.
#include "kernels/cuda/arg_reduce_kernels.h"
#include "kernels/cuda/pointwise_launch.cuh"

namespace ember::cuda {

namespace {

constexpr int kBlock = 256;

template <class M>
__device__ __forceinline__ bool is_nan(M v) {
  return v != v;  // false for integers and bool
}

// The candidate of the two that wins; index < 0 marks no candidate.
template <class M>
struct Best {
  M v;
  int64_t i;
};
template <class M>
__device__ __forceinline__ Best<M> pick(const Best<M>& a, const Best<M>& b, bool is_max) {
  if (a.i < 0) return b;
  if (b.i < 0) return a;
  const bool an = is_nan(a.v), bn = is_nan(b.v);
  if (an || bn) {
    if (an && bn) return a.i < b.i ? a : b;
    return an ? a : b;
  }
  if (is_max ? a.v > b.v : a.v < b.v) return a;
  if (is_max ? b.v > a.v : b.v < a.v) return b;
  return a.i < b.i ? a : b;
}

template <class T>
__global__ void thread_per_row(const T* x, T* values, int64_t* indices, int64_t outer, int64_t n, bool is_max) {
  using M = opmath_t<T>;
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < outer; r += step) {
    const T* row = x + r * n;
    Best<M> best{static_cast<M>(row[0]), 0};
    for (int64_t k = 1; k < n && !is_nan(best.v); ++k) best = pick(best, Best<M>{static_cast<M>(row[k]), k}, is_max);
    indices[r] = best.i;
    if (values) values[r] = row[best.i];
  }
}

template <class T>
__global__ void block_per_row(const T* x, T* values, int64_t* indices, int64_t outer, int64_t n, bool is_max) {
  using M = opmath_t<T>;
  __shared__ M sv[kBlock];
  __shared__ int64_t si[kBlock];
  for (int64_t r = blockIdx.x; r < outer; r += gridDim.x) {
    const T* row = x + r * n;
    Best<M> best{M(), -1};
    for (int64_t k = threadIdx.x; k < n; k += kBlock) best = pick(best, Best<M>{static_cast<M>(row[k]), k}, is_max);
    sv[threadIdx.x] = best.v;
    si[threadIdx.x] = best.i;
    __syncthreads();
    for (int s = kBlock / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) {
        const Best<M> c =
            pick(Best<M>{sv[threadIdx.x], si[threadIdx.x]}, Best<M>{sv[threadIdx.x + s], si[threadIdx.x + s]}, is_max);
        sv[threadIdx.x] = c.v;
        si[threadIdx.x] = c.i;
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      indices[r] = si[0];
      if (values) values[r] = row[si[0]];
    }
    __syncthreads();  // the shared arrays are reused by the next row
  }
}

}  // namespace

void arg_reduce(const Tensor& in, const Tensor& values, const Tensor& indices, bool is_max) {
  const int64_t n = in.dim() == 0 ? 1 : in.sizes()[in.dim() - 1];
  const int64_t outer = n == 0 ? 0 : in.numel() / n;
  if (outer == 0) return;
  const LaunchDevice on(in.device().index);
  EMBER_DISPATCH_ALL(in.dtype(), is_max ? "argmax_cuda" : "argmin_cuda", [&] {
    const scalar_t* x = in.data<scalar_t>();
    scalar_t* v = values.defined() ? values.data<scalar_t>() : nullptr;
    int64_t* idx = indices.data<int64_t>();
    if (n >= 64)
      block_per_row<scalar_t><<<capped_blocks(outer), kBlock, 0, current_stream(-1)>>>(x, v, idx, outer, n, is_max);
    else thread_per_row<scalar_t><<<grid_for(outer), 256, 0, current_stream(-1)>>>(x, v, idx, outer, n, is_max);
  });
  check_launch("argmax/argmin");
}

}  // namespace ember::cuda
