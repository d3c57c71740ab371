// softmax / log_softmax along the middle dim of contiguous (outer, size, inner) data on the GPU,
// and their backward passes, in op-math (float for the half types, as the CPU kernels:
// kernels/cpu/norm/softmax.cpp). A line along the last dim (inner 1) takes a block of 256 threads
// (max, then the sum of exponentials, each a tree in shared memory); lines with inner > 1 a
// thread each, whose neighbours read neighbouring addresses.
#include <cmath>

#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/cuda/softmax_kernels.h"

namespace ember::cuda {

namespace {

constexpr int kBlock = 256;

// The block's reduction of v (every thread gets the result); Max picks the larger, else the sum.
template <bool Max, class A>
__device__ A block_reduce(A v, A* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = kBlock / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      const A o = shared[threadIdx.x + s];
      shared[threadIdx.x] = Max ? (o > shared[threadIdx.x] ? o : shared[threadIdx.x]) : shared[threadIdx.x] + o;
    }
    __syncthreads();
  }
  const A r = shared[0];
  __syncthreads();  // shared is reused by the next reduction
  return r;
}

template <class T>
__global__ void forward_rows(const T* x, T* y, int64_t rows, int64_t size, bool log) {
  using A = opmath_t<T>;
  __shared__ A shared[kBlock];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * size;
    T* yr = y + r * size;
    A m = -INFINITY;
    for (int64_t k = threadIdx.x; k < size; k += kBlock) m = fmax(m, A(xr[k]));
    m = block_reduce<true>(m, shared);
    A s = 0;
    for (int64_t k = threadIdx.x; k < size; k += kBlock) s += exp(A(xr[k]) - m);
    s = block_reduce<false>(s, shared);
    const A ls = log ? m + std::log(s) : A(0);
    for (int64_t k = threadIdx.x; k < size; k += kBlock) yr[k] = log ? T(A(xr[k]) - ls) : T(exp(A(xr[k]) - m) / s);
  }
}

template <class T>
__global__ void forward_columns(const T* x, T* y, int64_t outer, int64_t size, int64_t inner, bool log) {
  using A = opmath_t<T>;
  for (int64_t l = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; l < outer * inner;
       l += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (l / inner) * size * inner + l % inner;
    A m = -INFINITY;
    for (int64_t k = 0; k < size; ++k) m = fmax(m, A(x[base + k * inner]));
    A s = 0;
    for (int64_t k = 0; k < size; ++k) s += exp(A(x[base + k * inner]) - m);
    const A ls = m + std::log(s);
    for (int64_t k = 0; k < size; ++k) {
      const A v = A(x[base + k * inner]);
      y[base + k * inner] = log ? T(v - ls) : T(exp(v - m) / s);
    }
  }
}

// softmax: dx = y (g - sum(g y)); log_softmax: dx = g - exp(y) sum(g)
template <class T>
__global__ void backward_rows(const T* y, const T* g, T* dx, int64_t rows, int64_t size, bool log) {
  using A = opmath_t<T>;
  __shared__ A shared[kBlock];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const int64_t o = r * size;
    A s = 0;
    for (int64_t k = threadIdx.x; k < size; k += kBlock) s += log ? A(g[o + k]) : A(g[o + k]) * A(y[o + k]);
    s = block_reduce<false>(s, shared);
    for (int64_t k = threadIdx.x; k < size; k += kBlock)
      dx[o + k] = log ? T(A(g[o + k]) - exp(A(y[o + k])) * s) : T(A(y[o + k]) * (A(g[o + k]) - s));
  }
}

template <class T>
__global__ void backward_columns(const T* y, const T* g, T* dx, int64_t outer, int64_t size, int64_t inner, bool log) {
  using A = opmath_t<T>;
  for (int64_t l = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; l < outer * inner;
       l += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (l / inner) * size * inner + l % inner;
    A s = 0;
    for (int64_t k = 0; k < size; ++k) {
      const int64_t i = base + k * inner;
      s += log ? A(g[i]) : A(g[i]) * A(y[i]);
    }
    for (int64_t k = 0; k < size; ++k) {
      const int64_t i = base + k * inner;
      dx[i] = log ? T(A(g[i]) - exp(A(y[i])) * s) : T(A(y[i]) * (A(g[i]) - s));
    }
  }
}

}  // namespace

void softmax_forward(const Tensor& x, const Tensor& y, int64_t outer, int64_t size, int64_t inner, bool log) {
  if (x.numel() == 0) return;
  const LaunchDevice on(x.device().index);
  EMBER_DISPATCH_FLOAT(x.dtype(), "softmax_cuda", [&] {
    if (inner == 1)
      forward_rows<scalar_t><<<capped_blocks(outer), kBlock, 0, current_stream(-1)>>>(
          x.data<scalar_t>(), y.data<scalar_t>(), outer, size, log);
    else
      forward_columns<scalar_t><<<grid_for(outer * inner), kBlock, 0, current_stream(-1)>>>(
          x.data<scalar_t>(), y.data<scalar_t>(), outer, size, inner, log);
  });
  check_launch("softmax kernel");
}

void softmax_backward(const Tensor& y, const Tensor& grad, const Tensor& dx, int64_t outer, int64_t size, int64_t inner,
                      bool log) {
  if (y.numel() == 0) return;
  const LaunchDevice on(y.device().index);
  EMBER_DISPATCH_FLOAT(y.dtype(), "softmax_backward_cuda", [&] {
    if (inner == 1)
      backward_rows<scalar_t><<<capped_blocks(outer), kBlock, 0, current_stream(-1)>>>(
          y.data<scalar_t>(), grad.data<scalar_t>(), dx.data<scalar_t>(), outer, size, log);
    else
      backward_columns<scalar_t><<<grid_for(outer * inner), kBlock, 0, current_stream(-1)>>>(
          y.data<scalar_t>(), grad.data<scalar_t>(), dx.data<scalar_t>(), outer, size, inner, log);
  });
  check_launch("softmax backward kernel");
}

}  // namespace ember::cuda
