// Complex pointwise kernels (see complex_pointwise.h). Arithmetic follows c10::complex, which is
// what PyTorch computes with: products by the textbook formula (no C99 Annex G inf/NaN
// recovery, so they vectorise), quotients by the scaled formula NumPy also uses (both in
// kernels/complex_arith.h, shared with the GPU's kernels), |z| as
// sqrt(re^2 + im^2) like PyTorch's vectorised abs, and the transcendental functions from <complex>
// (log1p / expm1 / logaddexp: c10's formulas, kernels/complex_math.h, shared with the GPU).
#include "kernels/cpu/complex/complex_pointwise.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <string>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "kernels/complex_arith.h"
#include "kernels/complex_math.h"
#include "kernels/cpu/complex/complex_vector_loops.h"

namespace ember {

namespace {

template <class R>
struct Cx {
  R re, im;
};

using complex_arith::div;
using complex_arith::mul;

template <class R>
inline std::complex<R> to_std(Cx<R> z) {
  return {z.re, z.im};
}
template <class R>
inline Cx<R> from_std(std::complex<R> z) {
  return {z.real(), z.imag()};
}

template <class R>
inline Cx<R> load(const char* p) {
  Cx<R> z;
  std::memcpy(&z, p, sizeof z);
  return z;
}

// out = f(a) over every 1-D run; a contiguous run is a plain indexed loop the compiler vectorises.
template <class R, class F>
void unary(ElementwiseIter& it, F f) {
  it.for_each([&](char** d, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(Cx<R>) && s[1] == sizeof(Cx<R>)) {
      auto* o = reinterpret_cast<Cx<R>*>(d[0]);
      const auto* a = reinterpret_cast<const Cx<R>*>(d[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      const Cx<R> r = f(load<R>(d[1] + i * s[1]));
      std::memcpy(d[0] + i * s[0], &r, sizeof r);
    }
  });
}

// bool out = pred(a) (isnan, isinf, isfinite).
template <class R, class F>
void predicate(ElementwiseIter& it, F pred) {
  it.for_each([&](char** d, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const bool r = pred(load<R>(d[1] + i * s[1]));
      std::memcpy(d[0] + i * s[0], &r, sizeof r);
    }
  });
}

template <class Out, class R, class F>
void binary(ElementwiseIter& it, F f) {
  it.for_each([&](char** d, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(Cx<R>) && s[2] == sizeof(Cx<R>)) {
      auto* o = reinterpret_cast<Out*>(d[0]);
      const auto* a = reinterpret_cast<const Cx<R>*>(d[1]);
      const auto* b = reinterpret_cast<const Cx<R>*>(d[2]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
      return;
    }
    if (s[0] == sizeof(Out) && s[1] == sizeof(Cx<R>) && s[2] == 0) {  // a scalar operand
      auto* o = reinterpret_cast<Out*>(d[0]);
      const auto* a = reinterpret_cast<const Cx<R>*>(d[1]);
      const Cx<R> b = load<R>(d[2]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      const Out r = f(load<R>(d[1] + i * s[1]), load<R>(d[2] + i * s[2]));
      std::memcpy(d[0] + i * s[0], &r, sizeof r);
    }
  });
}

// out = f(a, b, c), element by element (addcdiv, addcmul, lerp: not hot paths for complex).
template <class R, class F>
void ternary(ElementwiseIter& it, F f) {
  it.for_each([&](char** d, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const Cx<R> r = f(load<R>(d[1] + i * s[1]), load<R>(d[2] + i * s[2]), load<R>(d[3] + i * s[3]));
      std::memcpy(d[0] + i * s[0], &r, sizeof r);
    }
  });
}

// a * b: contiguous runs (one operand may be a broadcast scalar: the product commutes bit for bit)
// through the vector loops, the rest element by element.
template <class R>
void mul_runs(ElementwiseIter& it) {
  constexpr int64_t c = sizeof(Cx<R>);
  const bool stream = it.numel() * c >= kComplexStreamBytes;
  it.for_each([&](char** d, const int64_t* s, int64_t n) {
    auto* o = reinterpret_cast<R*>(d[0]);
    // in place (z *= w) the output's lines were just read into the cache: plain stores, no streaming
    const bool st = stream && d[0] != d[1] && d[0] != d[2];
    if (s[0] == c && s[1] == c && (s[2] == c || s[2] == 0))
      return complex_mul_run<R>(reinterpret_cast<const R*>(d[1]), reinterpret_cast<const R*>(d[2]), o, n, s[2] == 0,
                                st);
    if (s[0] == c && s[1] == 0 && s[2] == c)
      return complex_mul_run<R>(reinterpret_cast<const R*>(d[2]), reinterpret_cast<const R*>(d[1]), o, n, true, st);
    for (int64_t i = 0; i < n; ++i) {
      const Cx<R> r = mul(load<R>(d[1] + i * s[1]), load<R>(d[2] + i * s[2]));
      std::memcpy(d[0] + i * s[0], &r, sizeof r);
    }
  });
}

template <class R>
bool run(const char* k, ElementwiseIter& it, const Scalar* p) {
  using C = Cx<R>;
  auto is = [k](const char* name) { return std::strcmp(k, name) == 0; };
  auto std_fn = [&](auto g) { unary<R>(it, [g](C z) { return from_std<R>(g(to_std<R>(z))); }); };
  if (is("add") || is("sub")) {
    std::complex<R> al = p[0].to<std::complex<R>>();
    if (is("sub")) al = -al;
    const C alpha{al.real(), al.imag()};
    if (al.imag() == 0 && (al.real() == 1 || al.real() == -1))  // a + b, a - b: no product
      binary<C, R>(it, [s = al.real()](C a, C b) { return C{a.re + s * b.re, a.im + s * b.im}; });
    else
      binary<C, R>(it, [alpha](C a, C b) {
        const C t = mul(alpha, b);
        return C{a.re + t.re, a.im + t.im};
      });
  } else if (is("mul")) {
    mul_runs<R>(it);
  } else if (is("div_true")) {
    binary<C, R>(it, [](C a, C b) { return div(a, b); });
  } else if (is("eq")) {
    binary<bool, R>(it, [](C a, C b) { return a.re == b.re && a.im == b.im; });
  } else if (is("ne")) {
    binary<bool, R>(it, [](C a, C b) { return !(a.re == b.re && a.im == b.im); });
  } else if (is("neg")) {
    unary<R>(it, [](C z) { return C{-z.re, -z.im}; });
  } else if (is("square")) {
    unary<R>(it, [](C z) { return mul(z, z); });
  } else if (is("reciprocal")) {
    unary<R>(it, [](C z) { return div(C{R(1), R(0)}, z); });
  } else if (is("exp")) {
    std_fn([](std::complex<R> z) { return std::exp(z); });
  } else if (is("log")) {
    std_fn([](std::complex<R> z) { return std::log(z); });
  } else if (is("sqrt")) {
    std_fn([](std::complex<R> z) { return std::sqrt(z); });
  } else if (is("sin")) {
    std_fn([](std::complex<R> z) { return std::sin(z); });
  } else if (is("cos")) {
    std_fn([](std::complex<R> z) { return std::cos(z); });
  } else if (is("tanh")) {
    std_fn([](std::complex<R> z) { return std::tanh(z); });
  } else if (is("tan")) {
    std_fn([](std::complex<R> z) { return std::tan(z); });
  } else if (is("sinh")) {
    std_fn([](std::complex<R> z) { return std::sinh(z); });
  } else if (is("cosh")) {
    std_fn([](std::complex<R> z) { return std::cosh(z); });
  } else if (is("asin")) {  // the inverse functions: <complex>'s branch cuts, as c10 (std) has them
    std_fn([](std::complex<R> z) { return std::asin(z); });
  } else if (is("acos")) {
    std_fn([](std::complex<R> z) { return std::acos(z); });
  } else if (is("atan")) {
    std_fn([](std::complex<R> z) { return std::atan(z); });
  } else if (is("asinh")) {
    std_fn([](std::complex<R> z) { return std::asinh(z); });
  } else if (is("acosh")) {
    std_fn([](std::complex<R> z) { return std::acosh(z); });
  } else if (is("atanh")) {
    std_fn([](std::complex<R> z) { return std::atanh(z); });
  } else if (is("exp2")) {  // aten's 2^z = exp(ln 2 * z) (std has no complex exp2)
    std_fn([](std::complex<R> z) { return std::exp(R(0.693147180559945309417232121458176) * z); });
  } else if (is("expm1")) {
    unary<R>(it, [](C z) { return complex_math::expm1(z); });
  } else if (is("log2")) {
    unary<R>(it, [](C z) {  // aten's vector form: both parts of log(z) divided by ln 2 (log(0) keeps its angle)
      const std::complex<R> l = std::log(to_std<R>(z));
      return C{l.real() / std::log(R(2)), l.imag() / std::log(R(2))};
    });
  } else if (is("log10")) {
    std_fn([](std::complex<R> z) { return std::log10(z); });
  } else if (is("log1p")) {
    unary<R>(it, [](C z) { return complex_math::log1p(z); });
  } else if (is("rsqrt")) {
    unary<R>(it, [](C z) { return div(C{R(1), R(0)}, from_std<R>(std::sqrt(to_std<R>(z)))); });
  } else if (is("isnan")) {  // a NaN part makes the number NaN, an infinite part infinite
    predicate<R>(it, [](C z) { return std::isnan(z.re) || std::isnan(z.im); });
  } else if (is("isinf")) {
    predicate<R>(it, [](C z) { return std::isinf(z.re) || std::isinf(z.im); });
  } else if (is("isfinite")) {
    predicate<R>(it, [](C z) { return std::isfinite(z.re) && std::isfinite(z.im); });
  } else if (is("pow")) {
    binary<C, R>(it, [](C a, C b) { return from_std<R>(std::pow(to_std<R>(a), to_std<R>(b))); });
  } else if (is("addcdiv")) {
    const std::complex<R> v = p[0].to<std::complex<R>>();
    ternary<R>(it, [value = C{v.real(), v.imag()}](C a, C b, C c) {
      const C t = mul(value, div(b, c));
      return C{a.re + t.re, a.im + t.im};
    });
  } else if (is("addcmul")) {  // aten's self + value * t1 * t2, left to right
    const std::complex<R> v = p[0].to<std::complex<R>>();
    ternary<R>(it, [value = C{v.real(), v.imag()}](C a, C b, C c) {
      const C t = mul(mul(value, b), c);
      return C{a.re + t.re, a.im + t.im};
    });
  } else if (is("lerp")) {  // aten's two-sided form, the side chosen by |weight| < 0.5
    ternary<R>(it, [](C a, C b, C w) {
      const C d{b.re - a.re, b.im - a.im};
      if (std::hypot(w.re, w.im) < R(0.5)) {
        const C t = mul(w, d);
        return C{a.re + t.re, a.im + t.im};
      }
      const C t = mul(d, C{R(1) - w.re, -w.im});
      return C{b.re - t.re, b.im - t.im};
    });
  } else if (is("logaddexp")) {
    binary<C, R>(it, [](C a, C b) {
      return complex_math::logaddexp(
          a, b, [](C z) { return from_std<R>(std::exp(to_std<R>(z))); },
          [](C z) { return from_std<R>(std::log(to_std<R>(z))); });
    });
  } else if (is("logical_not")) {  // a complex number is true unless both parts are 0
    predicate<R>(it, [](C z) { return z.re == 0 && z.im == 0; });
  } else if (is("logical_and")) {
    binary<bool, R>(it, [](C a, C b) { return (a.re != 0 || a.im != 0) && (b.re != 0 || b.im != 0); });
  } else if (is("logical_or")) {
    binary<bool, R>(it, [](C a, C b) { return a.re != 0 || a.im != 0 || b.re != 0 || b.im != 0; });
  } else if (is("logical_xor")) {
    binary<bool, R>(it, [](C a, C b) { return (a.re != 0 || a.im != 0) != (b.re != 0 || b.im != 0); });
  } else if (is("silu")) {  // aten's x / (1 + e^-x)
    unary<R>(it, [](C z) {
      const std::complex<R> e = std::exp(-to_std<R>(z));
      return div(z, C{R(1) + e.real(), e.imag()});
    });
  } else if (is("sigmoid")) {
    unary<R>(it, [](C z) {
      const std::complex<R> e = std::exp(-to_std<R>(z));
      return div(C{R(1), R(0)}, C{R(1) + e.real(), e.imag()});
    });
  } else {
    return false;
  }
  return true;
}

// complex32: the kernels aten has for it (its c10::complex<c10::Half> arithmetic: each operation
// in complex<float>, each result rounded to float16 parts, so add's alpha * b rounds before the sum).
using CH = ComplexHalf;
inline CH mul_h(CH a, CH b) {
  const Cx<float> r = mul(Cx<float>{a.real(), a.imag()}, Cx<float>{b.real(), b.imag()});
  return CH(r.re, r.im);
}
inline CH add_h(CH a, CH b) { return CH(a.real() + b.real(), a.imag() + b.imag()); }

template <class Out, class F>
void binary_h(ElementwiseIter& it, F f) {
  it.for_each([&](char** d, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const Out r = f(*reinterpret_cast<const CH*>(d[1] + i * s[1]), *reinterpret_cast<const CH*>(d[2] + i * s[2]));
      std::memcpy(d[0] + i * s[0], &r, sizeof r);
    }
  });
}
template <class Out, class F>
void unary_h(ElementwiseIter& it, F f) {
  it.for_each([&](char** d, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const Out r = f(*reinterpret_cast<const CH*>(d[1] + i * s[1]));
      std::memcpy(d[0] + i * s[0], &r, sizeof r);
    }
  });
}

// add_h(a, mul_h(*alpha, b)), or mul_h(a, b) where alpha is null, over n values of contiguous or
// broadcast (stride 0: a_step / b_step 0) operands, in blocks whose float16 parts the backend's F16C
// conversions widen and narrow (the core library's own conversions, element by element, took 3/4
// of the time). Same roundings as add_h and mul_h.
void add_mul_h_blocks(const CH* a, int64_t a_step, const CH* b, int64_t b_step, CH* o, int64_t n, const CH* alpha) {
  constexpr int64_t kBlock = 256;  // complex values: 3 float buffers of 2 KB
  const CopyKernels& conv = cpu_backend().copy;
  float fa[2 * kBlock], fb[2 * kBlock], fr[2 * kBlock];
  uint16_t rounded[2 * kBlock];
  const auto load = [&conv](const CH* z, int64_t step, float* f, int64_t m) {
    if (step) return conv.widen_half(reinterpret_cast<const uint16_t*>(z), f, 2 * m);
    for (int64_t i = 0; i < m; ++i) {
      f[2 * i] = z->real();
      f[2 * i + 1] = z->imag();
    }
  };
  const Cx<float> x = alpha ? Cx<float>{alpha->real(), alpha->imag()} : Cx<float>{};
  for (int64_t s = 0; s < n; s += kBlock) {
    const int64_t m = std::min(kBlock, n - s), parts = 2 * m;
    if (s == 0 || a_step) load(a + s * a_step, a_step, fa, m);  // a broadcast value loads once
    if (s == 0 || b_step) load(b + s * b_step, b_step, fb, m);
    for (int64_t i = 0; i < m; ++i) {
      const Cx<float> r = mul(alpha ? x : Cx<float>{fa[2 * i], fa[2 * i + 1]}, Cx<float>{fb[2 * i], fb[2 * i + 1]});
      fr[2 * i] = r.re;
      fr[2 * i + 1] = r.im;
    }
    if (alpha) {  // alpha * b rounds to float16 before the sum
      conv.narrow_half(fr, rounded, parts);
      conv.widen_half(rounded, fr, parts);
      for (int64_t j = 0; j < parts; ++j) fr[j] = fa[j] + fr[j];
    }
    conv.narrow_half(fr, reinterpret_cast<uint16_t*>(o + s), parts);
  }
}

// binary_h for add / sub / mul; contiguous or broadcast runs through add_mul_h_blocks.
void add_mul_h(ElementwiseIter& it, const CH* alpha) {
  it.for_each([&](char** d, const int64_t* s, int64_t n) {
    constexpr int64_t w = sizeof(CH);
    if (s[0] == w && (s[1] == w || s[1] == 0) && (s[2] == w || s[2] == 0)) {
      add_mul_h_blocks(reinterpret_cast<const CH*>(d[1]), s[1] / w, reinterpret_cast<const CH*>(d[2]), s[2] / w,
                       reinterpret_cast<CH*>(d[0]), n, alpha);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      const CH a = *reinterpret_cast<const CH*>(d[1] + i * s[1]), b = *reinterpret_cast<const CH*>(d[2] + i * s[2]);
      const CH r = alpha ? add_h(a, mul_h(*alpha, b)) : mul_h(a, b);
      std::memcpy(d[0] + i * s[0], &r, sizeof r);
    }
  });
}

bool run_half(const char* k, ElementwiseIter& it, const Scalar* p) {
  auto is = [k](const char* name) { return std::strcmp(k, name) == 0; };
  if (is("add") || is("sub")) {  // aten: a + alpha * b, alpha read as complex32 (sub: -alpha)
    const CH alpha = is("sub") ? CH(-p[0].to<CH>().real(), -p[0].to<CH>().imag()) : p[0].to<CH>();
    add_mul_h(it, &alpha);
  } else if (is("mul")) {
    add_mul_h(it, nullptr);
  } else if (is("eq")) {
    binary_h<bool>(it, [](CH a, CH b) { return a.real() == b.real() && a.imag() == b.imag(); });
  } else if (is("ne")) {
    binary_h<bool>(it, [](CH a, CH b) { return !(a.real() == b.real() && a.imag() == b.imag()); });
  } else if (is("neg")) {
    unary_h<CH>(it, [](CH z) { return CH(-z.real(), -z.imag()); });
  } else if (is("isnan")) {
    unary_h<bool>(it, [](CH z) { return std::isnan(z.real()) || std::isnan(z.imag()); });
  } else if (is("isinf")) {
    unary_h<bool>(it, [](CH z) { return std::isinf(z.real()) || std::isinf(z.imag()); });
  } else if (is("isfinite")) {
    unary_h<bool>(it, [](CH z) { return std::isfinite(z.real()) && std::isfinite(z.imag()); });
  } else if (is("addcmul")) {  // aten's self + value * t1 * t2, left to right, in complex32
    const CH value = p[0].to<CH>();
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const auto at = [&](int o) { return *reinterpret_cast<const CH*>(d[o] + i * s[o]); };
        const CH r = add_h(at(1), mul_h(mul_h(value, at(2)), at(3)));
        std::memcpy(d[0] + i * s[0], &r, sizeof r);
      }
    });
  } else {
    return false;
  }
  return true;
}

// The kernel names aten's complex32 refusals give where they are not "<kernel>_cpu": its
// vectorised (VML) unary kernels, and a few dispatches of their own.
const char* half_refusal_name(const std::string& k, std::string& buf) {
  static const char* const kVml[] = {"exp",   "expm1",  "log", "log2", "log10",  "log1p", "sqrt",
                                     "sin",   "cos",    "tan", "tanh", "asin",   "acos",  "atan",
                                     "round", "lgamma", "erf", "erfc", "erfinv", "i0"};
  for (const char* v : kVml)
    if (k == v) return (buf = k + "_vml_cpu").c_str();
  if (k == "square" || k == "pow" || k == "pow_scalar") return "pow";
  if (k == "exp2" || k == "digamma" || k == "nan_to_num") return k.c_str();
  if (k == "div_true") return "div_cpu";
  if (k == "lerp") return "lerp_kernel_scalar";
  if (k == "addcdiv") return "addcdiv_cpu_out";
  if (k == "bitwise_left_shift") return "lshift_cpu";
  if (k == "bitwise_right_shift") return "rshift_cpu";
  return nullptr;
}

}  // namespace

void refuse_on_every_device(const std::string& k) {
  if (k == "floor" || k == "ceil" || k == "trunc")
    fail(ErrorKind::NotImplemented, k, " is not supported for complex inputs");
  if (k == "sign")
    fail(ErrorKind::NotImplemented,
         "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.");
  if (k == "deg2rad" || k == "rad2deg") fail(ErrorKind::Runtime, k, " is not supported for complex tensors.");
  if (k == "isposinf" || k == "isneginf") fail(ErrorKind::Runtime, k, " does not support complex inputs.");
  if (k == "signbit") fail(ErrorKind::NotImplemented, "signbit is not implemented for complex tensors.");
}

// PyTorch's refusals of complex operands on the CPU: its own where it has one, else its dispatch message.
[[noreturn]] static void refuse(const std::string& k, ScalarType t) {
  refuse_on_every_device(k);
  std::string buf;
  if (t == ScalarType::ComplexHalf)
    if (const char* name = half_refusal_name(k, buf)) dtype_not_implemented(name, t);
  if (k == "digamma") dtype_not_implemented("digamma", t);
  if (k == "round_decimals") dtype_not_implemented("round_cpu", t);
  if (k == "gelu" || k == "gelu_tanh") dtype_not_implemented("GeluKernelImpl", t);
  if (k == "gelu_backward" || k == "gelu_tanh_backward") dtype_not_implemented("GeluBackwardKernelImpl", t);
  if (k == "erf" || k == "erfc" || k == "erfinv" || k == "i0" || k == "lgamma" || k == "round")
    dtype_not_implemented((k + "_vml_cpu").c_str(), t);
  dtype_not_implemented((k + "_cpu").c_str(), t);
}

void complex_pointwise(const char* kernel, ElementwiseIter& it, const Scalar* params) {
  const ScalarType t = it.compute_dtype();
  const bool done = t == ScalarType::ComplexHalf    ? run_half(kernel, it, params)
                    : t == ScalarType::ComplexFloat ? run<float>(kernel, it, params)
                                                    : run<double>(kernel, it, params);
  if (!done) refuse(kernel, t);
}

void complex_abs(const Tensor& in, const Tensor& out) {
  const int64_t n = in.numel();
  if (in.dtype() == ScalarType::ComplexHalf) {  // aten: std::abs of the complex<float> value, rounded
    const auto* a = reinterpret_cast<const ComplexHalf*>(in.raw());
    Half* o = reinterpret_cast<Half*>(out.raw());
    GilRelease nogil;
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = Half(std::hypot(a[i].real(), a[i].imag()));
    });
    return;
  }
  auto run_abs = [&](auto tag) {
    using R = decltype(tag);
    const R* a = reinterpret_cast<const R*>(in.raw());
    R* o = reinterpret_cast<R*>(out.raw());
    const bool stream = n * int64_t(sizeof(R)) >= kComplexStreamBytes / 2;  // half of mul's output
    GilRelease nogil;
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) { complex_abs_run<R>(a + 2 * b, o + b, e - b, stream); });
  };
  if (in.dtype() == ScalarType::ComplexFloat) run_abs(float{});
  else run_abs(double{});
}

}  // namespace ember
