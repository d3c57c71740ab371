// The complex dtypes on the GPU (ComplexKernels, as the CPU's kernels/cpu/complex/): complex() /
// polar(), conj_physical, angle and abs over dense buffers, and the pointwise kernels: those whose
// arithmetic is exact formulas -- add / sub / mul / div, comparisons, predicates, logic, addcmul /
// addcdiv / lerp -- in c10::complex's formulas (kernels/complex_arith.h, as the CPU's), and the
// transcendental functions (exp, log, sqrt, the trigonometric and hyperbolic functions and their
// inverses, pow, sigmoid, ...) from kernels/complex_math.h. complex32's few kernels are in
// complex32_kernels.cu; the rest (its exp, div, ...) raise PyTorch's "Could not run 'aten::div' with
// arguments from the 'CUDA' backend".
#include <cmath>
#include <complex>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "core/error.h"
#include "core/half.h"
#include "kernels/complex_arith.h"
#include "kernels/complex_math.h"
#include "kernels/cpu/complex/complex_pointwise.h"
#include "kernels/cuda/complex_kernels.h"
#include "kernels/cuda/index_device.cuh"
#include "kernels/cuda/no_cuda_kernel.h"

namespace ember::cuda {

namespace {

using idx::CD;
using idx::CF;
using idx::kBlock;

template <class R>
using Cx = std::conditional_t<std::is_same_v<R, float>, CF, CD>;

using complex_arith::div;
using complex_arith::mul;

template <class C>
__device__ __forceinline__ bool nonzero(C z) {
  return z.re != 0 || z.im != 0;
}

// The functors (device code; the launcher calls them on op-math = element values).
template <class C>
struct AddScaled {  // a + alpha b
  C alpha;
  __device__ C operator()(C a, C b) const {
    const C t = mul(alpha, b);
    return {a.re + t.re, a.im + t.im};
  }
};
template <class C>
struct AddSigned {  // a + s b, s = +-1: no product (a + b, a - b)
  decltype(C{}.re) s;
  __device__ C operator()(C a, C b) const { return {a.re + s * b.re, a.im + s * b.im}; }
};
template <class C>
struct Mul {
  __device__ C operator()(C a, C b) const { return mul(a, b); }
};
template <class C>
struct Div {
  __device__ C operator()(C a, C b) const { return div(a, b); }
};
template <class C, bool kNe>
struct Equal {
  __device__ bool operator()(C a, C b) const { return (a.re == b.re && a.im == b.im) != kNe; }
};
template <class C>
struct Neg {
  __device__ C operator()(C z) const { return {-z.re, -z.im}; }
};
template <class C>
struct Square {
  __device__ C operator()(C z) const { return mul(z, z); }
};
template <class C>
struct Reciprocal {
  __device__ C operator()(C z) const { return div(C{1, 0}, z); }
};
// 0: isnan, 1: isinf, 2: isfinite (a NaN part makes the number NaN, an infinite part infinite)
template <class C, int kWhich>
struct Predicate {
  __device__ bool operator()(C z) const {
    if constexpr (kWhich == 0) return isnan(z.re) || isnan(z.im);
    else if constexpr (kWhich == 1) return isinf(z.re) || isinf(z.im);
    else return isfinite(z.re) && isfinite(z.im);
  }
};
template <class C>
struct LogicalNot {
  __device__ bool operator()(C z) const { return !nonzero(z); }
};
// 0: and, 1: or, 2: xor
template <class C, int kWhich>
struct Logical {
  __device__ bool operator()(C a, C b) const {
    if constexpr (kWhich == 0) return nonzero(a) && nonzero(b);
    else if constexpr (kWhich == 1) return nonzero(a) || nonzero(b);
    else return nonzero(a) != nonzero(b);
  }
};
template <class C>
struct Addcmul {  // aten's self + value * t1 * t2, left to right
  C value;
  __device__ C operator()(C a, C b, C c) const {
    const C t = mul(mul(value, b), c);
    return {a.re + t.re, a.im + t.im};
  }
};
template <class C>
struct Addcdiv {
  C value;
  __device__ C operator()(C a, C b, C c) const {
    const C t = mul(value, div(b, c));
    return {a.re + t.re, a.im + t.im};
  }
};
template <class C>
struct Lerp {  // aten's two-sided form, the side chosen by |weight| < 0.5
  __device__ C operator()(C a, C b, C w) const {
    const C d{b.re - a.re, b.im - a.im};
    if (hypot(w.re, w.im) < decltype(w.re)(0.5)) {
      const C t = mul(w, d);
      return {a.re + t.re, a.im + t.im};
    }
    const C t = mul(d, C{1 - w.re, -w.im});
    return {b.re - t.re, b.im - t.im};
  }
};

// The transcendental functions. The elementary ones evaluated on CD (complex64 widened: its
// float-only forms overflow near float's limits) and rounded once, as glibc's are correctly
// rounded on the CPU; the others composed of them in the element's type as the CPU composes them,
// so they overflow, round and give NaN where the CPU (and PyTorch) does.
enum class Fn {
  Exp,
  Log,
  Sqrt,
  Sin,
  Cos,
  Tan,
  Sinh,
  Cosh,
  Tanh,
  Asin,
  Acos,
  Atan,
  Asinh,
  Acosh,
  Atanh,
  Expm1,
  Log1p,
  Exp2,
  Log2,
  Log10,
  Rsqrt,
  Sigmoid,
  Silu,
  Pow,
  LogAddExp
};

template <Fn kFn, class C>
__device__ C elementary(C z) {
  namespace cm = complex_math;
  const CD w{z.re, z.im};
  CD r;
  if constexpr (kFn == Fn::Exp) r = cm::exp(w);
  else if constexpr (kFn == Fn::Log) r = cm::log(w);
  else if constexpr (kFn == Fn::Sqrt) r = cm::sqrt(w);
  else if constexpr (kFn == Fn::Sin) r = cm::sin(w);
  else if constexpr (kFn == Fn::Cos) r = cm::cos(w);
  else if constexpr (kFn == Fn::Tan) r = cm::tan(w);
  else if constexpr (kFn == Fn::Sinh) r = cm::sinh(w);
  else if constexpr (kFn == Fn::Cosh) r = cm::cosh(w);
  else if constexpr (kFn == Fn::Tanh) r = cm::tanh(w);
  else if constexpr (kFn == Fn::Asin) r = cm::asin(w);
  else if constexpr (kFn == Fn::Acos) r = cm::acos(w);
  else if constexpr (kFn == Fn::Atan) r = cm::atan(w);
  else if constexpr (kFn == Fn::Asinh) r = cm::asinh(w);
  else if constexpr (kFn == Fn::Acosh) r = cm::acosh(w);
  else r = cm::atanh(w);
  return {decltype(z.re)(r.re), decltype(z.re)(r.im)};
}

template <Fn kFn, class C>
__device__ C transcendental(C a, C b) {
  using R = decltype(a.re);
  constexpr R kLn2 = R(0.693147180559945309417232121458176568), kLn10 = R(2.30258509299404568401799145468436421);
  if constexpr (kFn <= Fn::Atanh) {
    return elementary<kFn>(a);
  } else if constexpr (kFn == Fn::Expm1) {  // c10's formulas, in the element's type as on the CPU
    return complex_math::expm1(a);
  } else if constexpr (kFn == Fn::Log1p) {
    return complex_math::log1p(a);
  } else if constexpr (kFn == Fn::Exp2) {  // aten's exp(ln 2 * z)
    return elementary<Fn::Exp>(C{kLn2 * a.re, kLn2 * a.im});
  } else if constexpr (kFn == Fn::Log2 || kFn == Fn::Log10) {  // both parts of log z over ln 2 / ln 10
    const C l = elementary<Fn::Log>(a);
    const R d = kFn == Fn::Log2 ? kLn2 : kLn10;
    return {l.re / d, l.im / d};
  } else if constexpr (kFn == Fn::Rsqrt) {
    return div(C{1, 0}, elementary<Fn::Sqrt>(a));
  } else if constexpr (kFn == Fn::Sigmoid || kFn == Fn::Silu) {  // 1 / (1 + e^-z), z / (1 + e^-z)
    const C e = elementary<Fn::Exp>(C{-a.re, -a.im});
    return div(kFn == Fn::Sigmoid ? C{1, 0} : a, C{1 + e.re, e.im});
  } else if constexpr (kFn == Fn::Pow) {  // glibc's cpow: exp(b log a)
    return elementary<Fn::Exp>(mul(b, elementary<Fn::Log>(a)));
  } else {
    return complex_math::logaddexp(
        a, b, [](C v) { return elementary<Fn::Exp>(v); }, [](C v) { return elementary<Fn::Log>(v); });
  }
}

template <class C, Fn kFn>
struct Unary {
  __device__ C operator()(C z) const { return transcendental<kFn>(z, z); }
};
template <class C, Fn kFn>
struct Binary {
  __device__ C operator()(C a, C b) const { return transcendental<kFn>(a, b); }
};

// The kernel names of the transcendental functions, in Fn's order.
constexpr const char* kFnNames[] = {"exp",  "log",   "sqrt",  "sin",     "cos",   "tan",   "sinh",     "cosh",  "tanh",
                                    "asin", "acos",  "atan",  "asinh",   "acosh", "atanh", "expm1",    "log1p", "exp2",
                                    "log2", "log10", "rsqrt", "sigmoid", "silu",  "pow",   "logaddexp"};

template <class C, int kI = 0>
bool launch_transcendental(int which, const ElementwiseIter& it) {
  if constexpr (kI == int(Fn::LogAddExp) + 1) {
    return false;
  } else {
    if (which != kI) return launch_transcendental<C, kI + 1>(which, it);
    constexpr Fn f = Fn(kI);
    if constexpr (f == Fn::Pow || f == Fn::LogAddExp) launch_pointwise<2, C, C>(it, Binary<C, f>{});
    else launch_pointwise<1, C, C>(it, Unary<C, f>{});
    return true;
  }
}

template <class R>
bool run(const char* k, const ElementwiseIter& it, const Scalar* p) {
  using C = Cx<R>;
  auto is = [k](const char* name) { return std::strcmp(k, name) == 0; };
  auto param = [&] {
    const std::complex<R> v = p[0].to<std::complex<R>>();
    return C{v.real(), v.imag()};
  };
  if (is("add") || is("sub")) {
    C alpha = param();
    if (is("sub")) alpha = {-alpha.re, -alpha.im};
    if (alpha.im == 0 && (alpha.re == 1 || alpha.re == -1)) launch_pointwise<2, C, C>(it, AddSigned<C>{alpha.re});
    else launch_pointwise<2, C, C>(it, AddScaled<C>{alpha});
  } else if (is("mul")) {
    launch_pointwise<2, C, C>(it, Mul<C>{});
  } else if (is("div_true")) {
    launch_pointwise<2, C, C>(it, Div<C>{});
  } else if (is("eq")) {
    launch_pointwise<2, bool, C>(it, Equal<C, false>{});
  } else if (is("ne")) {
    launch_pointwise<2, bool, C>(it, Equal<C, true>{});
  } else if (is("neg")) {
    launch_pointwise<1, C, C>(it, Neg<C>{});
  } else if (is("square")) {
    launch_pointwise<1, C, C>(it, Square<C>{});
  } else if (is("reciprocal")) {
    launch_pointwise<1, C, C>(it, Reciprocal<C>{});
  } else if (is("isnan")) {
    launch_pointwise<1, bool, C>(it, Predicate<C, 0>{});
  } else if (is("isinf")) {
    launch_pointwise<1, bool, C>(it, Predicate<C, 1>{});
  } else if (is("isfinite")) {
    launch_pointwise<1, bool, C>(it, Predicate<C, 2>{});
  } else if (is("logical_not")) {
    launch_pointwise<1, bool, C>(it, LogicalNot<C>{});
  } else if (is("logical_and")) {
    launch_pointwise<2, bool, C>(it, Logical<C, 0>{});
  } else if (is("logical_or")) {
    launch_pointwise<2, bool, C>(it, Logical<C, 1>{});
  } else if (is("logical_xor")) {
    launch_pointwise<2, bool, C>(it, Logical<C, 2>{});
  } else if (is("addcmul")) {
    launch_pointwise<3, C, C>(it, Addcmul<C>{param()});
  } else if (is("addcdiv")) {
    launch_pointwise<3, C, C>(it, Addcdiv<C>{param()});
  } else if (is("lerp")) {
    launch_pointwise<3, C, C>(it, Lerp<C>{});
  } else {
    for (int i = 0; i < int(std::size(kFnNames)); ++i)
      if (is(kFnNames[i])) return launch_transcendental<C>(i, it);
    return false;
  }
  return true;
}

// ---- dense buffers

template <class R>
__global__ void from_parts_kernel(const R* a, const R* b, Cx<R>* out, int64_t n, bool polar) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = polar ? Cx<R>{a[i] * cos(b[i]), a[i] * sin(b[i])} : Cx<R>{a[i], b[i]};
}

// complex32 from two float16 parts; conj of complex32 (a part's sign is its top bit): 16-bit words.
__global__ void interleave_kernel(const uint16_t* a, const uint16_t* b, uint16_t* out, int64_t n) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    out[2 * i] = a[i];
    out[2 * i + 1] = b[i];
  }
}

template <class W>
__global__ void conj_kernel(const W* in, W* out, int64_t n, W sign) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    out[2 * i] = in[2 * i];
    out[2 * i + 1] = in[2 * i + 1] ^ sign;
  }
}

template <class R>
__global__ void angle_complex_kernel(const Cx<R>* in, R* out, int64_t n) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) out[i] = atan2(in[i].im, in[i].re);
}

// angle of a real number: pi below zero, NaN for NaN, else 0 (in op-math, rounded once).
template <class T>
__global__ void angle_real_kernel(const T* in, T* out, int64_t n) {
  using M = opmath_t<T>;
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const M v = static_cast<M>(in[i]);
    out[i] = static_cast<T>(isnan(v) ? v : v < 0 ? M(3.14159265358979323846) : M(0));
  }
}

// |z| as hypot (no overflow in re^2 + im^2: the CPU's careful path gives the same value);
// complex32 through float, rounded once.
template <class R>
__global__ void abs_kernel(const R* in, R* out, int64_t n) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    using M = opmath_t<R>;
    out[i] = static_cast<R>(hypot(static_cast<M>(in[2 * i]), static_cast<M>(in[2 * i + 1])));
  }
}

}  // namespace

void complex_pointwise(const char* kernel, ElementwiseIter& it, const Scalar* params) {
  const ScalarType t = it.compute_dtype();
  const bool done = t == ScalarType::ComplexFloat    ? run<float>(kernel, it, params)
                    : t == ScalarType::ComplexDouble ? run<double>(kernel, it, params)
                                                     : complex32_pointwise(kernel, it, params);
  if (done) return;
  refuse_on_every_device(kernel);  // floor's, sign's, ...: PyTorch's own words on any device
  no_cuda_kernel();  // the rest (complex32's exp, div, ...): the CUDA table's missing entry, named after the op
}

void complex_abs(const Tensor& in, const Tensor& out) {
  const int64_t n = in.numel();
  if (n == 0) return;
  const LaunchDevice on(in.device().index);
  auto run_abs = [&](auto part) {  // the parts' type, also the result's
    using R = decltype(part);
    abs_kernel<<<grid_for(n), kBlock, 0, current_stream(-1)>>>(reinterpret_cast<const R*>(in.raw()),
                                                               reinterpret_cast<R*>(out.raw()), n);
  };
  if (in.dtype() == ScalarType::ComplexHalf) run_abs(Half{});
  else if (in.dtype() == ScalarType::ComplexFloat) run_abs(float{});
  else run_abs(double{});
  check_launch("abs");
}

void complex_from_parts(ScalarType ct, const void* a, const void* b, void* out, int64_t n, bool polar) {
  if (n == 0) return;
  const int device = device_of(out, polar ? "polar" : "complex");
  const LaunchDevice on(device);
  const unsigned grid = grid_for(n);
  if (ct == ScalarType::ComplexHalf) {  // complex() of two float16 parts: the parts as they are
    interleave_kernel<<<grid, kBlock, 0, current_stream(-1)>>>(
        static_cast<const uint16_t*>(a), static_cast<const uint16_t*>(b), static_cast<uint16_t*>(out), n);
  } else if (ct == ScalarType::ComplexFloat) {
    from_parts_kernel<float><<<grid, kBlock, 0, current_stream(-1)>>>(
        static_cast<const float*>(a), static_cast<const float*>(b), static_cast<CF*>(out), n, polar);
  } else {
    from_parts_kernel<double><<<grid, kBlock, 0, current_stream(-1)>>>(
        static_cast<const double*>(a), static_cast<const double*>(b), static_cast<CD*>(out), n, polar);
  }
  check_launch(polar ? "polar" : "complex");
}

void complex_conj(ScalarType ct, const void* in, void* out, int64_t n) {
  if (n == 0) return;
  const LaunchDevice on(device_of(out, "conj_physical"));
  const unsigned grid = grid_for(n);
  // a part's sign is its top bit: flipped as an unsigned word of the part's width
  if (ct == ScalarType::ComplexHalf)
    conj_kernel<uint16_t><<<grid, kBlock, 0, current_stream(-1)>>>(static_cast<const uint16_t*>(in),
                                                                   static_cast<uint16_t*>(out), n, uint16_t(0x8000u));
  else if (ct == ScalarType::ComplexFloat)
    conj_kernel<uint32_t><<<grid, kBlock, 0, current_stream(-1)>>>(static_cast<const uint32_t*>(in),
                                                                   static_cast<uint32_t*>(out), n, 0x80000000u);
  else
    conj_kernel<uint64_t><<<grid, kBlock, 0, current_stream(-1)>>>(static_cast<const uint64_t*>(in),
                                                                   static_cast<uint64_t*>(out), n, uint64_t(1) << 63);
  check_launch("conj_physical");
}

void complex_angle(ScalarType dt, const void* in, void* out, int64_t n) {
  if (n == 0) return;
  const LaunchDevice on(device_of(out, "angle"));
  const unsigned grid = grid_for(n);
  if (dt == ScalarType::ComplexFloat) {
    angle_complex_kernel<float>
        <<<grid, kBlock, 0, current_stream(-1)>>>(static_cast<const CF*>(in), static_cast<float*>(out), n);
  } else if (dt == ScalarType::ComplexDouble) {
    angle_complex_kernel<double>
        <<<grid, kBlock, 0, current_stream(-1)>>>(static_cast<const CD*>(in), static_cast<double*>(out), n);
  } else if (dt == ScalarType::ComplexHalf) {
    no_cuda_kernel();
  } else {
    EMBER_DISPATCH_FLOAT(dt, "angle", [&] {
      angle_real_kernel<scalar_t>
          <<<grid, kBlock, 0, current_stream(-1)>>>(static_cast<const scalar_t*>(in), static_cast<scalar_t*>(out), n);
    });
  }
  check_launch("angle");
}

}  // namespace ember::cuda
