// What the index and embedding kernels on the GPU share (index_kernels.cu, index_put_kernels.cu,
// mask_kernels.cu, embedding_kernels.cu): element types as the device sees them (a complex as a
// pair of reals), the reductions in op-math (as the CPU kernels: float for the half types),
// read-modify-write atomics for elements of any width up to 8 bytes, the strided geometry of up
// to 25 dims, and device scratch (a flag or a few counts that come back to the host).
#pragma once
#include <cuda_runtime.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/allocator.h"
#include "core/error.h"
#include "core/half.h"
#include "core/scalar_type.h"
#include "core/tensor.h"
#include "kernels/cuda/device_of.h"
#include "kernels/cuda/device_scratch.h"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/device_transfer.h"

namespace ember::cuda::idx {

constexpr int kBlock = 256;
constexpr int kMaxDims = 25;  // aten's CUDA limit too

// complex64 / complex128 as the device sees them (std::complex has no device arithmetic).
struct CF {
  float re, im;
};
struct CD {
  double re, im;
};
template <class T>
struct Dev {
  using type = T;
};
template <>
struct Dev<std::complex<float>> {
  using type = CF;
};
template <>
struct Dev<std::complex<double>> {
  using type = CD;
};
template <class T>
using dev_t = typename Dev<T>::type;

// The op-math type of a device element type: float for the half types, else itself.
template <class D>
using acc_t = std::conditional_t<std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>, float, D>;

// The reductions of the CPU kernels (kernels/cpu/index/scatter_gather.cpp's reduce_into): in op-math,
// NaN wins for max / min (a NaN source replaces, a NaN destination stays).
template <class D>
struct Arith {
  using A = acc_t<D>;
  __device__ static D add(D d, D s) { return static_cast<D>(A(d) + A(s)); }
  __device__ static D add_scaled(D d, D s, A a) { return static_cast<D>(A(d) + a * A(s)); }
  __device__ static D mul(D d, D s) { return static_cast<D>(A(d) * A(s)); }
  __device__ static D max(D d, D s) { return (A(s) != A(s) || A(s) > A(d)) ? s : d; }
  __device__ static D min(D d, D s) { return (A(s) != A(s) || A(s) < A(d)) ? s : d; }
};
template <>
struct Arith<bool> {
  using A = bool;
  __device__ static bool add(bool d, bool s) { return d || s; }
  __device__ static bool add_scaled(bool d, bool s, bool a) { return d || (a && s); }
  __device__ static bool mul(bool d, bool s) { return d && s; }
  __device__ static bool max(bool d, bool s) { return d || s; }
  __device__ static bool min(bool d, bool s) { return d && s; }
};
template <class C>
struct ComplexArith {
  using A = C;
  __device__ static C add(C d, C s) { return {d.re + s.re, d.im + s.im}; }
  __device__ static C mul(C d, C s) { return {d.re * s.re - d.im * s.im, d.re * s.im + d.im * s.re}; }
  __device__ static C add_scaled(C d, C s, C a) { return add(d, mul(a, s)); }
  __device__ static C max(C d, C) { return d; }  // never met: the ops refuse amax / amin for complex
  __device__ static C min(C d, C) { return d; }
};
template <>
struct Arith<CF> : ComplexArith<CF> {};
template <>
struct Arith<CD> : ComplexArith<CD> {};

// *p = f(*p) atomically for an element of 1, 2, 4 or 8 bytes: a compare-and-swap loop on the
// element's word (a 1- or 2-byte element through the aligned 32-bit word holding it).
template <class T, class F>
__device__ void atomic_apply(T* p, const F& f) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "element width");
  if constexpr (sizeof(T) == 8 || sizeof(T) == 4) {
    using W = std::conditional_t<sizeof(T) == 8, unsigned long long, unsigned int>;
    W* w = reinterpret_cast<W*>(p);
    W old = *w, assumed;
    do {
      assumed = old;
      T cur;
      memcpy(&cur, &assumed, sizeof(T));
      const T nv = f(cur);
      W nb;
      memcpy(&nb, &nv, sizeof(T));
      old = atomicCAS(w, assumed, nb);
    } while (assumed != old);
  } else {
    using B = std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    unsigned int* w = reinterpret_cast<unsigned int*>(a & ~uintptr_t(3));
    const unsigned shift = static_cast<unsigned>(a & 3) * 8;
    const unsigned mask = static_cast<unsigned>(static_cast<B>(~B(0))) << shift;
    unsigned old = *w, assumed;
    do {
      assumed = old;
      const B bits = static_cast<B>((assumed & mask) >> shift);
      T cur;
      memcpy(&cur, &bits, sizeof(T));
      const T nv = f(cur);
      B nb;
      memcpy(&nb, &nv, sizeof(T));
      old = atomicCAS(w, assumed, (assumed & ~mask) | (static_cast<unsigned>(nb) << shift));
    } while (assumed != old);
  }
}

template <class D>
struct AddOf {
  D s;
  __device__ D operator()(D d) const { return Arith<D>::add(d, s); }
};
template <class D>
struct AddScaledOf {
  D s;
  acc_t<D> a;
  __device__ D operator()(D d) const { return Arith<D>::add_scaled(d, s, a); }
};
template <class D>
struct MulOf {
  D s;
  __device__ D operator()(D d) const { return Arith<D>::mul(d, s); }
};
template <class D>
struct MaxOf {
  D s;
  __device__ D operator()(D d) const { return Arith<D>::max(d, s); }
};
template <class D>
struct MinOf {
  D s;
  __device__ D operator()(D d) const { return Arith<D>::min(d, s); }
};

// *p += s (in op-math, rounded once per addition as the CPU loops do); the hardware's adds where
// there is one, a complex as its two parts.
template <class D>
__device__ void atomic_add(D* p, D s) {
  if constexpr (std::is_same_v<D, float> || std::is_same_v<D, double> || std::is_same_v<D, int32_t>) {
    atomicAdd(p, s);
  } else if constexpr (std::is_same_v<D, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(s));  // wraps as int64
  } else if constexpr (std::is_same_v<D, CF> || std::is_same_v<D, CD>) {
    atomicAdd(&p->re, s.re);
    atomicAdd(&p->im, s.im);
  } else {
    atomic_apply(p, AddOf<D>{s});
  }
}

// Half types' atomic sums go to a float buffer (as the CPU's sums are in float), then are rounded
// once into the gradient.
template <class D>
__global__ void round_into(const float* acc, D* gx, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    gx[i] = static_cast<D>(acc[i]);
}

// *p += a * s: the scaled form of index_add (alpha != 1).
template <class D>
__device__ void atomic_add_scaled(D* p, D s, acc_t<D> a) {
  if constexpr (std::is_same_v<D, CF> || std::is_same_v<D, CD>) {
    atomic_add(p, Arith<D>::mul(a, s));
  } else if constexpr (std::is_same_v<D, float> || std::is_same_v<D, double>) {
    atomicAdd(p, a * s);
  } else {
    atomic_apply(p, AddScaledOf<D>{s, a});
  }
}

// Sizes and element strides of up to three operands over one shape (the index's, for gather /
// scatter: operand 0 is self or input, 1 the index, 2 the source).
struct Geometry3 {
  int nd;
  int64_t size[kMaxDims];
  int64_t st[3][kMaxDims];
};

inline void check_dims(int64_t nd, const char* what) {
  EMBER_CHECK(nd <= kMaxDims, what, ": the CUDA kernels take tensors of at most ", kMaxDims, " dims, got ", nd);
}

// The launch grid of a grid-stride loop over n items, at least one block.
inline unsigned blocks_for(int64_t n) { return grid_for(n > 0 ? n : 1); }

// The one element of a 0-d tensor (a value the op body made on the host, or one on the device) as
// bytes of width sizeof(U), read on the host: it rides into the kernel as an argument.
template <class U>
U value_of(const Tensor& v) {
  U u{};
  if (v.device().is_cpu()) std::memcpy(&u, v.raw(), sizeof(U));
  else device_to_host(&u, v.raw(), v.device().index, sizeof(U));
  return u;
}

}  // namespace ember::cuda::idx
