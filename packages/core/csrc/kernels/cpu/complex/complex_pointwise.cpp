// Complex pointwise kernels (see complex_pointwise.h). Arithmetic follows c10::complex, which is
// what PyTorch computes with: products by the textbook formula (no C99 Annex G inf/NaN
// recovery, so they vectorise), quotients by the scaled formula NumPy also uses, |z| as
// sqrt(re^2 + im^2) like PyTorch's vectorised abs, and the transcendental functions from <complex>.
#include "kernels/cpu/complex/complex_pointwise.h"

#include <cmath>
#include <complex>
#include <cstring>

#include "iter/elementwise_iter.h"

namespace ember {

namespace {

template <class R>
struct Cx {
  R re, im;
};

template <class R>
inline Cx<R> mul(Cx<R> a, Cx<R> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

template <class R>
inline Cx<R> div(Cx<R> x, Cx<R> y) {
  const R a = x.re, b = x.im, c = y.re, d = y.im;
  const R ac = std::abs(c), ad = std::abs(d);
  if (ac >= ad) {
    if (ac == 0 && ad == 0) return {a / ac, b / ad};  // a complex inf or NaN, as c10 gives
    const R rat = d / c, scl = R(1) / (c + d * rat);
    return {(a + b * rat) * scl, (b - a * rat) * scl};
  }
  const R rat = c / d, scl = R(1) / (d + c * rat);
  return {(a * rat + b) * scl, (b * rat - a) * scl};
}

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

// out = f(a, b, c), element by element (addcdiv: not a hot path for complex).
template <class R, class F>
void ternary(ElementwiseIter& it, F f) {
  it.for_each([&](char** d, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const Cx<R> r = f(load<R>(d[1] + i * s[1]), load<R>(d[2] + i * s[2]), load<R>(d[3] + i * s[3]));
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
    binary<C, R>(it, [](C a, C b) { return mul(a, b); });
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

}  // namespace

// PyTorch's own refusals of complex operands, where it has one (else its dispatch message).
[[noreturn]] static void refuse(const std::string& k, ScalarType t) {
  if (k == "floor" || k == "ceil" || k == "trunc")
    fail(ErrorKind::NotImplemented, k, " is not supported for complex inputs");
  if (k == "sign")
    fail(ErrorKind::NotImplemented,
         "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.");
  if (k == "deg2rad" || k == "rad2deg") fail(ErrorKind::Runtime, k, " is not supported for complex tensors.");
  if (k == "isposinf" || k == "isneginf") fail(ErrorKind::Runtime, k, " does not support complex inputs.");
  if (k == "signbit") fail(ErrorKind::NotImplemented, "signbit is not implemented for complex tensors.");
  if (k == "relu") fail(ErrorKind::NotImplemented, "clamp is not supported for complex types");
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
  const bool done = t == ScalarType::ComplexFloat ? run<float>(kernel, it, params) : run<double>(kernel, it, params);
  if (!done) refuse(kernel, t);
}

void complex_abs(const Tensor& in, const Tensor& out) {
  const int64_t n = in.numel();
  auto run_abs = [&](auto tag) {
    using R = decltype(tag);
    const R* a = reinterpret_cast<const R*>(in.raw());
    R* o = reinterpret_cast<R*>(out.raw());
    GilRelease nogil;
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = std::sqrt(a[2 * i] * a[2 * i] + a[2 * i + 1] * a[2 * i + 1]);
    });
  };
  if (in.dtype() == ScalarType::ComplexFloat) run_abs(float{});
  else run_abs(double{});
}

}  // namespace ember
