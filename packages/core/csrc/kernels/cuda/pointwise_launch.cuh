// One launcher for every pointwise kernel on the GPU: ops.yaml's functors (the same text as the
// CPU loops use, compiled as device code) applied over an ElementwiseIter's coalesced dims, by a
// strided kernel, or for contiguous float / half operands of one dtype a contiguous one that moves
// 16 bytes (or 4 elements) per operand per load, as memory bandwidth wants.
//
// The iterator has already broadcast, promoted, allocated the output on the device and sorted
// and merged the dims; a thread turns its linear index into each operand's byte offset. An
// operand converted on the iterator's stack (a Python number, a CPU 0-d tensor) lives in host
// memory, so its value rides in the kernel's arguments instead.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "core/error.h"
#include "core/scalar_type.h"
#include "iter/elementwise_iter.h"
#include "kernels/cuda/device_error.h"
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

// f of the Arity op-math values a.
template <int Arity, class F, class A>
__device__ __forceinline__ auto apply(const F& f, const A (&a)[Arity]) {
  if constexpr (Arity == 1) return f(a[0]);
  else if constexpr (Arity == 2) return f(a[0], a[1]);
  else return f(a[0], a[1], a[2]);
}

// Element i of the iteration: Out = f(In...) at each operand's offset.
template <int Arity, class Out, class In, class F>
__device__ __forceinline__ void apply_at(const Geometry<Arity + 1>& g, int64_t i, const F& f) {
  int64_t off[Arity + 1];
  offsets(g, i, off);
  opmath_t<In> a[Arity];
  for (int o = 0; o < Arity; ++o) a[o] = load<In>(g, o + 1, off);
  *reinterpret_cast<Out*>(g.data[0] + off[0]) = static_cast<Out>(apply<Arity>(f, a));
}

template <int Arity, class Out, class In, class F>
__global__ void pointwise_kernel(const Geometry<Arity + 1> g, int64_t n, const F f) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) apply_at<Arity, Out, In>(g, i, f);
}

// Vec elements of T as one aligned load or store.
template <class T, int Vec>
struct alignas(sizeof(T) * Vec) Pack {
  T v[Vec];
};

// The contiguous launcher's width for Out = f(In...): 16 bytes, at most 4 elements, for the float
// and half types of one dtype (what bandwidth-bound training steps move); 0 (the strided kernel
// only) for the rest, which also keeps the build's kernel count down.
template <class Out, class In>
constexpr int contiguous_width() {
  if constexpr (!std::is_same_v<Out, In>) return 0;
  else if constexpr (std::is_same_v<In, float>) return 4;
  else if constexpr (std::is_same_v<In, Half> || std::is_same_v<In, BFloat16>) return 4;
  else return 0;
}

// Every operand dense (ndim 1, unit element stride) or a value in the arguments, and each
// pointer aligned for Vec-wide loads.
template <int N, class T, int Vec>
bool contiguous_aligned(const Geometry<N>& g) {
  if (g.ndim != 1) return false;
  for (int o = 0; o < N; ++o) {
    if (o > 0 && g.by_value[o]) continue;
    if (g.stride[o][0] != int64_t(sizeof(T))) return false;
    if (reinterpret_cast<uintptr_t>(g.data[o]) % (sizeof(T) * Vec) != 0) return false;
  }
  return true;
}

// The contiguous kernel: thread t takes elements [Vec t, Vec t + Vec) of each grid-stride round,
// the last n % Vec elements one per thread after.
template <int Arity, class T, int Vec, class F>
__global__ void contiguous_kernel(const Geometry<Arity + 1> g, int64_t n, const F f) {
  using A = opmath_t<T>;
  const int64_t step = int64_t(blockDim.x) * gridDim.x, first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t packs = n / Vec;
  for (int64_t p = first; p < packs; p += step) {
    Pack<T, Vec> in[Arity];
    for (int o = 0; o < Arity; ++o) {
      if (g.by_value[o + 1]) {
        for (int j = 0; j < Vec; ++j) in[o].v[j] = *reinterpret_cast<const T*>(g.value[o + 1]);
      } else {
        in[o] = reinterpret_cast<const Pack<T, Vec>*>(g.data[o + 1])[p];
      }
    }
    Pack<T, Vec> out;
    for (int j = 0; j < Vec; ++j) {
      A a[Arity];
      for (int o = 0; o < Arity; ++o) a[o] = static_cast<A>(in[o].v[j]);
      out.v[j] = static_cast<T>(apply<Arity>(f, a));
    }
    reinterpret_cast<Pack<T, Vec>*>(g.data[0])[p] = out;
  }
  if (packs * Vec + first < n) apply_at<Arity, T, T>(g, packs * Vec + first, f);  // the tail
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

// CUDA_LAUNCH_BLOCKING=1 (PyTorch's debugging switch): each launch is waited for, so a kernel's
// errors -- the device error records' bad indices too -- are raised by the op that launched it.
inline bool launch_blocking() {
  static const bool on = [] {
    const char* v = std::getenv("CUDA_LAUNCH_BLOCKING");
    return v && v[0] == '1';
  }();
  return on;
}

inline void check_launch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  EMBER_CHECK(e == cudaSuccess, "CUDA error: ", cudaGetErrorString(e), " (", what, ")");
  if (launch_blocking()) [[unlikely]] {
    check_cuda(cudaStreamSynchronize(current_stream(-1)), what);
    raise_device_errors();
  }
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
  const Geometry<Arity + 1> g = geometry_of<Arity + 1>(it);
  constexpr int kVec = contiguous_width<Out, In>();
  if constexpr (kVec > 0) {
    if (contiguous_aligned<Arity + 1, In, kVec>(g)) {
      contiguous_kernel<Arity, In, kVec, F><<<grid_for((n + kVec - 1) / kVec), 256, 0, current_stream(-1)>>>(g, n, f);
      check_launch("pointwise kernel");
      return;
    }
  }
  pointwise_kernel<Arity, Out, In, F><<<grid_for(n), 256, 0, current_stream(-1)>>>(g, n, f);
  check_launch("pointwise kernel");
}

// The arity-less-one launch with the functor's last operand bound to v.
template <int Arity, class Out, class In, class F, class T>
void launch_pointwise_bound(const ElementwiseIter& it, const F& f, T v) {
  if constexpr (Arity == 1) launch_pointwise<1, Out, In>(it, BindLast1<F, T>{f, v});
  else launch_pointwise<2, Out, In>(it, BindLast2<F, T>{f, v});
}

}  // namespace ember::cuda
