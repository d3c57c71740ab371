// Special functions in double precision: digamma, the Hurwitz zeta
// function (for polygamma) and erfinv; and aten's float polygamma of a half type. Scalar code;
// called per element by the kernels.
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/half.h"
#include "core/host_device.h"

namespace ember::special {
namespace {

// Coefficients (2k)! / B_2k of the Euler-Maclaurin correction terms of the Hurwitz zeta sum
// (zeta below and special_ops.h's hurwitz_zeta).
EMBER_DEVICE_TABLE constexpr double kZetaCorrection[] = {12.0,
                                                         -720.0,
                                                         30240.0,
                                                         -1209600.0,
                                                         47900160.0,
                                                         -1.8924375803183791606e9,
                                                         7.47242496e10,
                                                         -2.950130727918164224e12,
                                                         1.1646782814350067249e14,
                                                         -4.5979787224074726105e15,
                                                         1.8152105401943546773e17,
                                                         -7.1661652561756670113e18};

EMBER_HOST_DEVICE inline double digamma(double x) {
  const double kInf = std::numeric_limits<double>::infinity();
  if (x == 0) return std::signbit(x) ? kInf : -kInf;
  if (x < 0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
    // Reflection: psi(1 - x) - psi(x) = pi / tan(pi x)
    return digamma(1.0 - x) - M_PI / std::tan(M_PI * x);
  }
  double acc = 0;
  while (x < 10) {  // psi(x) = psi(x + 1) - 1/x
    acc -= 1.0 / x;
    x += 1.0;
  }
  // Asymptotic series: ln x - 1/2x - sum B_2k / (2k x^2k)
  double y = 1.0 / (x * x);
  double poly = y * (1.0 / 12 - y * (1.0 / 120 - y * (1.0 / 252 - y * (1.0 / 240 - y * (1.0 / 132)))));
  return acc + std::log(x) - 0.5 / x - poly;
}

// Hurwitz zeta(s, q) = sum_k (k + q)^-s, by Euler-Maclaurin summation.
EMBER_HOST_DEVICE inline double zeta(double s, double q) {
  const double kInf = std::numeric_limits<double>::infinity();
  if (s == 1) return kInf;
  if (s < 1 || std::isnan(q) || q == -kInf) return std::numeric_limits<double>::quiet_NaN();
  if (q == kInf) return 0.0;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (s != std::floor(s)) return std::numeric_limits<double>::quiet_NaN();
  }
  const double eps = 1.11e-16;
  double sum = std::pow(q, -s), a = q, b = 0;
  if (sum == 0) return 0.0;  // q > 1 and s so large that every term underflows
  int i = 0;
  while (i < 9 || a <= 9.0) {
    ++i;
    a += 1.0;
    b = std::pow(a, -s);
    sum += b;
    if (std::fabs(b / sum) < eps) return sum;
  }
  double w = a;
  sum += b * w / (s - 1.0);
  sum -= 0.5 * b;
  double fac = 1.0, k = 0.0;
  for (int j = 0; j < 12; ++j) {
    fac *= s + k;
    b /= w;
    double t = fac * b / kZetaCorrection[j];
    sum += t;
    if (std::fabs(t / sum) < eps) return sum;
    k += 1.0;
    fac *= s + k;
    b /= w;
    k += 1.0;
  }
  return sum;
}

// log zeta(s, x) for x > 0 where zeta itself underflows (s large): the terms (x + k)^-s relative
// to the first, summed until negligible, then the tail as the integral of t^-s from x + K + 1/2.
EMBER_HOST_DEVICE inline double log_zeta_large(double s, double x) {
  const double lx = std::log(x);
  double acc = 1.0;
  int64_t k = 1;
  for (; k <= 100000; ++k) {
    const double r = std::exp(-s * (std::log(x + static_cast<double>(k)) - lx));
    acc += r;
    if (r < 1e-17 * acc) return -s * lx + std::log(acc);
  }
  const double t = x + static_cast<double>(k) - 0.5;
  acc += std::exp(s * lx + (1.0 - s) * std::log(t) - std::log(s - 1.0));
  return -s * lx + std::log(acc);
}

EMBER_HOST_DEVICE inline double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  double sign = (n % 2) ? 1.0 : -1.0;  // (-1)^(n+1)
  const double s = static_cast<double>(n) + 1.0, lg = std::lgamma(s), z = zeta(s, x);
  // For a huge n, n! overflows while zeta(n + 1, x) underflows (x > 1): their product is
  // exp(lgamma(n + 1) + log zeta(n + 1, x)), not inf * 0 (and +-0 at x = inf).
  if (z == 0 && x > 0 && std::isinf(std::exp(lg)))
    return std::isinf(x) ? sign * 0.0 : sign * std::exp(lg + log_zeta_large(s, x));
  // Between the poles below 0 the term of the x + k nearest 0 dominates, and with n! overflowing
  // the result is inf with that term's sign (the sum itself overflows to inf - inf or, for x < -1,
  // starts from an underflowing term): d^-(n+1) is positive for an odd n, and for an even one has
  // d's sign (d = +-1/2 cancel in pairs, leaving the positive terms past them).
  if (x < 0 && std::isfinite(x) && x != std::floor(x) && std::isinf(std::exp(lg))) {
    const double d = x - std::round(x);
    const double inf = std::numeric_limits<double>::infinity();
    return (n % 2) ? inf : (d < 0 ? inf : -inf);
  }
  return sign * std::exp(lg) * z;
}

// aten's zeta(s, q) for a half type (polygamma's n >= 2): cephes' series in float with aten's
// termination test, then rounded to the half type S (returned as float).
template <class S>
EMBER_HOST_DEVICE inline float zeta_half_type(float s, float q) {
  if (q <= 0 && q == std::floor(q)) return std::numeric_limits<float>::infinity();
  const float eps = 1.11022302462515654042E-16f;
  float sum = std::pow(q, -s), a = q, b = 0;
  for (int i = 0; i < 9 || a <= 9.0f;) {
    ++i;
    a += 1.0f;
    b = std::pow(a, -s);
    sum += b;
    if (-eps * sum < b && b < eps * sum) return static_cast<float>(S(sum));
  }
  const float w = a;
  sum += b * w / (s - 1.0f);
  sum -= 0.5f * b;
  float fac = 1.0f, k = 0.0f;
  for (int j = 0; j < 12; ++j) {
    fac *= s + k;
    b /= w;
    const float t = fac * b / static_cast<float>(kZetaCorrection[j]);
    sum = sum + t;
    if (std::fabs(t / sum) < eps) break;
    k += 1.0f;
    fac *= s + k;
    b /= w;
    k += 1.0f;
  }
  return static_cast<float>(S(sum));
}

// aten's polygamma of a half type S for 2 <= n <= 34 (n! finite in float) and a finite x:
// n! * zeta(n + 1, x) as expf(lgammaf(n + 1)) times the zeta rounded to S, rounded again. The two
// roundings put ~28% of float16 results one step off the exact value; ember gives PyTorch's (into
// an out= of another dtype too: the kernel runs in the input's dtype). False, and ember's double
// path answers, where the zeta is subnormal or 0 in S: aten's value there lost the bits the
// rounding cut (polygamma(10, 6.0) is 0 in float16, not 0.0098).
template <class S>
EMBER_HOST_DEVICE inline bool polygamma_half_type(int64_t n, float x, float* out) {
  const float min_normal = std::is_same_v<S, Half> ? 6.103515625e-05f : std::numeric_limits<float>::min();
  const float z = zeta_half_type<S>(static_cast<float>(n + 1), x);
  if (!(std::fabs(z) >= min_normal)) return false;
  const float sign = (n % 2) ? 1.0f : -1.0f;
  *out = static_cast<float>(S(sign * std::exp(std::lgamma(static_cast<float>(n) + 1.0f)) * z));
  return true;
}

// Inverse error function: Giles' single-precision approximation ("Approximating the erfinv
// function", 2010) as the start, then Halley steps on erf near 0 and Newton steps on log(erfc) in
// the tails, where 1 - |y| is exact and the log keeps the iteration nearly linear.
EMBER_HOST_DEVICE inline double erfinv(double y) {
  const double a = std::fabs(y);
  if (!(a <= 1.0)) return std::numeric_limits<double>::quiet_NaN();  // NaN or |y| > 1
  if (a == 1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
  if (a == 0.0) return y;  // keeps -0.0
  double w = -std::log1p(-a * a);
  double x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
                     0.246640727, 1.50140941})
      p = c + p * w;
    x = p * a;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                     1.00167406, 2.83297682})
      p = c + p * w;
    x = p * a;
  }
  const double k = 1.1283791670955126;  // 2 / sqrt(pi)
  if (a <= 0.5) {
    for (int i = 0; i < 2; ++i) {  // Halley on erf(x) - a (f'' = -2x f')
      double f = std::erf(x) - a, d = k * std::exp(-x * x);
      x -= f / (d + x * f);
    }
  } else {
    const double log_tail = std::log(1.0 - a);  // exact 1 - a (Sterbenz)
    for (int i = 0; i < 4; ++i) {               // Newton on log(erfc(x)) - log(1 - a)
      double c = std::erfc(x);
      if (!(c > 0)) break;
      double f = std::log(c) - log_tail, d = -k * std::exp(-x * x) / c;
      x -= f / d;
    }
  }
  return std::copysign(x, y);
}

}  // namespace
}  // namespace ember::special
