// One launcher for every pointwise kernel on the GPU: ops.yaml's functors (the same text as the
// CPU loops use, compiled as device code) applied over an ElementwiseIter's coalesced dims.
//
// The iterator has already broadcast, promoted, allocated the output on the device and sorted
// and merged the dims; a thread turns its linear index into each operand's byte offset. An
// operand converted on the iterator's stack (a Python number, a CPU 0-d tensor) lives in host
// memory, so its value rides in the kernel's arguments instead.
#pragma once
#include <cuda_runtime_api.h>

#include <cstring>

#include "core/error.h"
#include "core/scalar_type.h"
#include "iter/elementwise_iter.h"
#include "kernels/cuda/device_of.h"

namespace ember::cuda {

// The geometry of N operands (output first) as a kernel argument, well under the 4 KB limit.
template <int N>
struct Geometry {
  int ndim;
  int64_t shape[kMaxIterDims];
  int64_t stride[N][kMaxIterDims];  // bytes
  char* data[N];
  bool by_value[N];
  alignas(16) char value[N][16];  // an operand's value when by_value (compute dtype)
};

template <int N>
__device__ __forceinline__ void offsets(const Geometry<N>& g, int64_t i, int64_t (&off)[N]) {
  if (g.ndim == 1) {  // contiguous (or one strided dim) after coalescing: no 64-bit division at all
    for (int o = 0; o < N; ++o) off[o] = i * g.stride[o][0];
    return;
  }
  for (int o = 0; o < N; ++o) off[o] = 0;
  for (int d = 0; d < g.ndim; ++d) {
    const int64_t size = g.shape[d];
    const int64_t idx = i % size;
    i /= size;
    for (int o = 0; o < N; ++o) off[o] += idx * g.stride[o][d];
  }
}

template <class In, int N>
__device__ __forceinline__ opmath_t<In> load(const Geometry<N>& g, int o, const int64_t (&off)[N]) {
  const char* p = g.by_value[o] ? g.value[o] : g.data[o] + off[o];
  return static_cast<opmath_t<In>>(*reinterpret_cast<const In*>(p));
}

template <int Arity, class Out, class In, class F>
__global__ void pointwise_kernel(const Geometry<Arity + 1> g, int64_t n, const F f) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[Arity + 1];
    offsets(g, i, off);
    Out r;
    if constexpr (Arity == 1) r = static_cast<Out>(f(load<In>(g, 1, off)));
    else if constexpr (Arity == 2) r = static_cast<Out>(f(load<In>(g, 1, off), load<In>(g, 2, off)));
    else r = static_cast<Out>(f(load<In>(g, 1, off), load<In>(g, 2, off), load<In>(g, 3, off)));
    *reinterpret_cast<Out*>(g.data[0] + off[0]) = r;
  }
}

// The functor with its last operand bound: how mul/div keep a Python number in op-math for half
// types (the CPU loops bind it in a lambda).
template <class F, class T>
struct BindLast1 {
  F f;
  T v;
  __host__ __device__ auto operator()(T a) const { return f(a, v); }
};
template <class F, class T>
struct BindLast2 {
  F f;
  T v;
  __host__ __device__ auto operator()(T a, T b) const { return f(a, b, v); }
};

// The launch configuration every kernel here shares: 256 threads and grid-stride loops over at most
// 8 x 65535 blocks (each thread, or block, then takes several items).
inline unsigned capped_blocks(int64_t blocks) {
  constexpr int64_t kMaxBlocks = 65535 * 8;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}
inline unsigned grid_for(int64_t n) { return capped_blocks((n + 255) / 256); }

inline void check_launch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  EMBER_CHECK(e == cudaSuccess, "CUDA error: ", cudaGetErrorString(e), " (", what, ")");
}

template <int N>
Geometry<N> geometry_of(const ElementwiseIter& it) {
  Geometry<N> g{};
  g.ndim = it.ndim();
  for (int d = 0; d < g.ndim; ++d) g.shape[d] = it.shape(d);
  for (int o = 0; o < N; ++o) {
    for (int d = 0; d < g.ndim; ++d) g.stride[o][d] = it.stride(o, d);
    g.data[o] = it.data(o);
    g.by_value[o] = o > 0 && it.on_stack(o);
    if (g.by_value[o]) std::memcpy(g.value[o], it.data(o), 16);  // the stack slot's compute-dtype value
  }
  return g;
}

// Runs f over the iteration: Out = f(In...) (op-math In), Arity inputs after the output.
template <int Arity, class Out, class In, class F>
void launch_pointwise(const ElementwiseIter& it, const F& f) {
  const int64_t n = it.numel();
  if (n == 0) return;
  const LaunchDevice on(it.device().index);
  pointwise_kernel<Arity, Out, In, F><<<grid_for(n), 256, 0, current_stream(-1)>>>(geometry_of<Arity + 1>(it), n, f);
  check_launch("pointwise kernel");
}

// The arity-less-one launch with the functor's last operand bound to v.
template <int Arity, class Out, class In, class F, class T>
void launch_pointwise_bound(const ElementwiseIter& it, const F& f, T v) {
  if constexpr (Arity == 1) launch_pointwise<1, Out, In>(it, BindLast1<F, T>{f, v});
  else launch_pointwise<2, Out, In>(it, BindLast2<F, T>{f, v});
}

}  // namespace ember::cuda
