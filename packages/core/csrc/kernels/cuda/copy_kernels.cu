// Copy/cast and where on the GPU: the CUDA entries of CopyKernels, over the same launch geometry
// as the pointwise kernels (kernels/cuda/pointwise_launch.cuh).
//
// Casts follow the CPU kernels' (c10's) rules: real -> complex has a zero imaginary part, complex
// -> real keeps the real part, -> bool tests for nonzero; half types convert through float (a
// complex32 part too, from and to any type). std::complex has no device code, so complex elements
// (complex32's included) are read and written as two parts.
#include "kernels/cuda/copy_kernels.h"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/element_bytes.h"

namespace ember::cuda {

namespace {

// An element type as the device sees it: complex<T> as {re, im}.
template <class T>
struct Parts {
  T re, im;
};
template <class T>
struct DeviceType_ {
  using type = T;
};
template <class T>
struct DeviceType_<std::complex<T>> {
  using type = Parts<T>;
};
template <>
struct DeviceType_<ComplexHalf> {
  using type = Parts<Half>;
};
template <class T>
using device_t = typename DeviceType_<T>::type;

template <class T>
struct IsParts : std::false_type {};
template <class T>
struct IsParts<Parts<T>> : std::true_type {};

template <class D, class S>
__device__ __forceinline__ D cast(const S& x) {
  if constexpr (IsParts<D>::value && IsParts<S>::value) {
    using R = decltype(D::re);
    return D{static_cast<R>(x.re), static_cast<R>(x.im)};
  } else if constexpr (IsParts<D>::value) {
    using R = decltype(D::re);
    return D{static_cast<R>(static_cast<opmath_t<S>>(x)), R(0)};
  } else if constexpr (IsParts<S>::value) {
    using M = opmath_t<decltype(x.re)>;  // (a float16 part compared as float)
    if constexpr (std::is_same_v<D, bool>) return M(x.re) != M(0) || M(x.im) != M(0);
    else return static_cast<D>(static_cast<opmath_t<D>>(x.re));
  } else if constexpr (std::is_same_v<D, bool>) {
    return static_cast<opmath_t<S>>(x) != opmath_t<S>(0);
  } else {
    return static_cast<D>(static_cast<opmath_t<D>>(static_cast<opmath_t<S>>(x)));
  }
}

template <class D, class S>
__global__ void copy_kernel(const Geometry<2> g, int64_t n) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[2];
    offsets(g, i, off);
    const char* src = g.by_value[1] ? g.value[1] : g.data[1] + off[1];
    *reinterpret_cast<D*>(g.data[0] + off[0]) = cast<D>(*reinterpret_cast<const S*>(src));
  }
}

// where: the element is moved, not converted (every operand has the output's dtype), so one
// kernel per element size (W: the unsigned word of that size, kernels/element_bytes.h).
template <class W>
__global__ void where_kernel(const Geometry<4> g, int64_t n) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[4];
    offsets(g, i, off);
    const char* c = g.by_value[1] ? g.value[1] : g.data[1] + off[1];
    const int pick = *reinterpret_cast<const bool*>(c) ? 2 : 3;
    const char* v = g.by_value[pick] ? g.value[pick] : g.data[pick] + off[pick];
    *reinterpret_cast<W*>(g.data[0] + off[0]) = *reinterpret_cast<const W*>(v);
  }
}

}  // namespace

void copy(ElementwiseIter& it) {
  const int64_t n = it.numel();
  if (n == 0) return;
  const LaunchDevice on(it.device().index);
  const Geometry<2> g = geometry_of<2>(it);
  EMBER_DISPATCH_EVERY_TYPE(it.compute_dtype(), "copy_", [&] {
    using D = device_t<scalar_t>;
    EMBER_DISPATCH_EVERY_TYPE(it.input_dtype(0), "copy_", [&] {
      copy_kernel<D, device_t<scalar_t>><<<grid_for(n), 256, 0, current_stream(-1)>>>(g, n);
    });
  });
  check_launch("copy_");
}

void where(ElementwiseIter& it) {
  if (it.numel() == 0) return;
  const LaunchDevice on(it.device().index);
  by_itemsize(element_size(it.compute_dtype()), [&](auto w) {
    where_kernel<decltype(w)><<<grid_for(it.numel()), 256, 0, current_stream(-1)>>>(geometry_of<4>(it), it.numel());
  });
  check_launch("where");
}

}  // namespace ember::cuda
