// complex32 arithmetic on the GPU: the kernels aten (and the CPU's run_half, kernels/cpu/complex/
// complex_pointwise.cpp) has for it -- add / sub (with alpha), mul, eq / ne, neg, isnan / isinf /
// isfinite and addcmul -- in c10::complex<c10::Half>'s arithmetic: each operation in complex<float>,
// each result rounded to float16 parts (so add's alpha * b rounds before the sum).
#include <cstring>

#include "core/half.h"
#include "kernels/complex_arith.h"
#include "kernels/cuda/complex_kernels.h"
#include "kernels/cuda/pointwise_launch.cuh"

namespace ember::cuda {

namespace {

struct H2 {  // a complex32 element as the device reads it
  Half re, im;
};
struct F2 {
  float re, im;
};

__device__ __forceinline__ F2 wide(H2 z) { return {float(z.re), float(z.im)}; }
__device__ __forceinline__ H2 narrow(F2 z) { return {Half(z.re), Half(z.im)}; }
__device__ __forceinline__ H2 mul_h(H2 a, H2 b) { return narrow(complex_arith::mul(wide(a), wide(b))); }
__device__ __forceinline__ H2 add_h(H2 a, H2 b) {
  return narrow(F2{float(a.re) + float(b.re), float(a.im) + float(b.im)});
}

struct AddScaled {  // a + alpha b, alpha * b rounded first
  H2 alpha;
  __device__ H2 operator()(H2 a, H2 b) const { return add_h(a, mul_h(alpha, b)); }
};
struct Mul {
  __device__ H2 operator()(H2 a, H2 b) const { return mul_h(a, b); }
};
template <bool kNe>
struct Equal {
  __device__ bool operator()(H2 a, H2 b) const {
    return (float(a.re) == float(b.re) && float(a.im) == float(b.im)) != kNe;
  }
};
struct Neg {
  __device__ H2 operator()(H2 z) const { return narrow(F2{-float(z.re), -float(z.im)}); }
};
// 0: isnan, 1: isinf, 2: isfinite
template <int kWhich>
struct Predicate {
  __device__ bool operator()(H2 z) const {
    const F2 w = wide(z);
    if constexpr (kWhich == 0) return isnan(w.re) || isnan(w.im);
    else if constexpr (kWhich == 1) return isinf(w.re) || isinf(w.im);
    else return isfinite(w.re) && isfinite(w.im);
  }
};
struct Addcmul {  // aten's self + value * t1 * t2, left to right, each step rounded
  H2 value;
  __device__ H2 operator()(H2 a, H2 b, H2 c) const { return add_h(a, mul_h(mul_h(value, b), c)); }
};

H2 param(const Scalar& p, bool negate) {
  const ComplexHalf v = p.to<ComplexHalf>();  // read as complex32, as aten reads alpha
  return negate ? H2{Half(-v.real()), Half(-v.imag())} : H2{v.re, v.im};
}

}  // namespace

bool complex32_pointwise(const char* k, const ElementwiseIter& it, const Scalar* p) {
  auto is = [k](const char* name) { return std::strcmp(k, name) == 0; };
  if (is("add") || is("sub")) launch_pointwise<2, H2, H2>(it, AddScaled{param(p[0], is("sub"))});
  else if (is("mul")) launch_pointwise<2, H2, H2>(it, Mul{});
  else if (is("eq")) launch_pointwise<2, bool, H2>(it, Equal<false>{});
  else if (is("ne")) launch_pointwise<2, bool, H2>(it, Equal<true>{});
  else if (is("neg")) launch_pointwise<1, H2, H2>(it, Neg{});
  else if (is("isnan")) launch_pointwise<1, bool, H2>(it, Predicate<0>{});
  else if (is("isinf")) launch_pointwise<1, bool, H2>(it, Predicate<1>{});
  else if (is("isfinite")) launch_pointwise<1, bool, H2>(it, Predicate<2>{});
  else if (is("addcmul")) launch_pointwise<3, H2, H2>(it, Addcmul{param(p[0], false)});
  else return false;
  return true;
}

}  // namespace ember::cuda
