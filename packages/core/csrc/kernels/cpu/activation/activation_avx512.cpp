// gelu (erf and tanh forms), silu, their backward kernels and sigmoid, with the AVX-512 width. The
// table kernels are built for baseline and AVX2 only (a third build of every generated kernel would
// add minutes to a clean build); these are the activations where the width pays: PyTorch computes
// their exp / erf 16 floats at a time, and at 16 lanes ember keeps up. The same scalar bodies
// (pointwise/activation_ops.h) in a function compiled for AVX-512 (isa_variants.h, form 1),
// so the values are those of the other builds up to the vector width's FMA contraction.
#include "kernels/cpu/activation/activation_avx512.h"

#include "core/cpu_capability.h"
#include "iter/elementwise_iter.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/pointwise/activation_ops.h"

namespace ember::cpu {

#ifdef EMBER_HAVE_TARGETS
namespace {

template <class T>
struct GeluErf {
  EMBER_VEC_INLINE T operator()(T x) const { return ops::gelu_erf(x); }
};
template <class T>
struct GeluTanh {
  EMBER_VEC_INLINE T operator()(T x) const { return ops::gelu_tanh(x); }
};
template <class T>
struct Silu {
  EMBER_VEC_INLINE T operator()(T x) const { return ops::silu_(x); }
};
template <class T>
struct Sigmoid {
  EMBER_VEC_INLINE T operator()(T x) const { return vec::sigmoid(x); }
};
template <class T>
struct SiluBackward {
  EMBER_VEC_INLINE T operator()(T dy, T x) const { return ops::silu_backward_(dy, x); }
};
template <class T>
struct GeluErfBackward {
  EMBER_VEC_INLINE T operator()(T dy, T x) const { return ops::gelu_erf_backward(dy, x); }
};
template <class T>
struct GeluTanhBackward {
  EMBER_VEC_INLINE T operator()(T dy, T x) const { return ops::gelu_tanh_backward(dy, x); }
};

// One 1-D run; the loop (and the functor's erf / tanh / exp) inlined under the AVX-512 target.
template <class S, template <class> class F>
EMBER_TARGET_AVX512 void unary_run(char** d, const int64_t* s, int64_t n) {
  unary_loop<S, S>(d, s, n, F<opmath_t<S>>{});
}
template <class S, template <class> class F>
EMBER_TARGET_AVX512 void binary_run(char** d, const int64_t* s, int64_t n) {
  binary_loop<S, S>(d, s, n, F<opmath_t<S>>{});
}

template <template <class> class F>
void unary_kernel(ElementwiseIter& it, const char* name) {
  EMBER_DISPATCH_FLOAT(it.compute_dtype(), name, [&] { it.for_each(unary_run<scalar_t, F>); });
}
template <template <class> class F>
void binary_kernel(ElementwiseIter& it, const char* name) {
  EMBER_DISPATCH_FLOAT(it.compute_dtype(), name, [&] { it.for_each(binary_run<scalar_t, F>); });
}

}  // namespace
#endif

void use_avx512_activations(PointwiseKernels& t) {
#ifdef EMBER_HAVE_TARGETS
  if (!cpu_has_avx512()) return;
  t.gelu = [](ElementwiseIter& it, const Scalar*) { unary_kernel<GeluErf>(it, "gelu_cpu"); };
  t.gelu_tanh = [](ElementwiseIter& it, const Scalar*) { unary_kernel<GeluTanh>(it, "gelu_tanh_cpu"); };
  t.gelu_backward = [](ElementwiseIter& it, const Scalar*) { binary_kernel<GeluErfBackward>(it, "gelu_backward_cpu"); };
  t.gelu_tanh_backward = [](ElementwiseIter& it, const Scalar*) {
    binary_kernel<GeluTanhBackward>(it, "gelu_tanh_backward_cpu");
  };
  t.silu = [](ElementwiseIter& it, const Scalar*) { unary_kernel<Silu>(it, "silu_cpu"); };
  t.silu_backward = [](ElementwiseIter& it, const Scalar*) { binary_kernel<SiluBackward>(it, "silu_backward_cpu"); };
  t.sigmoid = [](ElementwiseIter& it, const Scalar*) { unary_kernel<Sigmoid>(it, "sigmoid_cpu"); };
#else
  (void)t;
#endif
}

}  // namespace ember::cpu
