// Kernel-body entry points of torch.special's functions (ops/special.yaml): the double-precision
// scalar code of special_bessel.h / special_erf.h rounded once to the op-math type T, and the
// polynomials evaluated in T itself (PyTorch's precision and overflow).
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "core/host_device.h"
#include "kernels/cpu/pointwise/special_bessel.h"
#include "kernels/cpu/pointwise/special_bessel_n.h"
#include "kernels/cpu/pointwise/special_erf.h"
#include "kernels/cpu/pointwise/special_igamma.h"
#include "kernels/cpu/pointwise/special_math.h"
#include "kernels/cpu/pointwise/special_polynomials.h"

namespace ember::special {
namespace {

// Hurwitz zeta(x, q) = sum_k (k + q)^-x for torch.special.zeta: PyTorch's edge order (x == 1 -> inf,
// x < 1 -> NaN, a non-positive integer q -> inf, a non-integer x there -> NaN), then Euler-Maclaurin
// summation with no shortcuts, so infinite / NaN / underflowing terms give PyTorch's NaN or inf.
// (special_math.h's zeta, which polygamma uses, returns 0 for q = inf and for an underflowing sum.)
EMBER_HOST_DEVICE inline double hurwitz_zeta(double x, double q) {
  if (x == 1) return std::numeric_limits<double>::infinity();
  if (x < 1) return std::numeric_limits<double>::quiet_NaN();
  if (q <= 0) {
    if (q == std::floor(q)) return std::numeric_limits<double>::infinity();
    if (x != std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
  }
  const double eps = 1.11022302462515654042e-16;
  double s = std::pow(q, -x), a = q, b = 0.0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    ++i;
    a += 1.0;
    b = std::pow(a, -x);
    s += b;
    if (-eps * s < b && b < eps * s) return s;
  }
  const double w = a;
  s += b * w / (x - 1.0);
  s -= 0.5 * b;
  double fac = 1.0, k = 0.0;
  for (double c : kZetaCorrection) {
    fac *= x + k;
    b /= w;
    const double t = fac * b / c;
    s += t;
    if (std::fabs(t / s) < eps) return s;
    k += 1.0;
    fac *= x + k;
    b /= w;
    k += 1.0;
  }
  return s;
}

}  // namespace
}  // namespace ember::special

namespace ember::ops {
namespace {

template <class T, class F>
EMBER_HOST_DEVICE inline T via_double(F f, T x) {
  return static_cast<T>(f(static_cast<double>(x)));
}

template <class T>
EMBER_HOST_DEVICE inline T i0(T x) {
  return via_double([](double v) { return special::bessel_i(v, 0, false); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T i0e(T x) {
  return via_double([](double v) { return special::bessel_i(v, 0, true); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T i1(T x) {
  return via_double([](double v) { return special::bessel_i(v, 1, false); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T i1e(T x) {
  return via_double([](double v) { return special::bessel_i(v, 1, true); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T bessel_k0(T x, bool scaled) {
  return via_double([scaled](double v) { return special::bessel_k(v, 0, scaled); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T bessel_k1(T x, bool scaled) {
  return via_double([scaled](double v) { return special::bessel_k(v, 1, scaled); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T bessel_j0(T x) {
  return via_double([](double v) { return special::bessel_j(v, 0); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T bessel_j1(T x) {
  return via_double([](double v) { return special::bessel_j(v, 1); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T bessel_y0(T x) {
  return via_double([](double v) { return special::bessel_y(v, 0); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T bessel_y1(T x) {
  return via_double([](double v) { return special::bessel_y(v, 1); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T airy_ai(T x) {
  return via_double([](double v) { return special::airy_ai(v); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T spherical_bessel_j0(T x) {
  return via_double([](double v) { return special::spherical_bessel_j0(v); }, x);
}
template <class T>
EMBER_HOST_DEVICE inline T zeta(T x, T q) {
  return static_cast<T>(special::hurwitz_zeta(static_cast<double>(x), static_cast<double>(q)));
}

}  // namespace
}  // namespace ember::ops
