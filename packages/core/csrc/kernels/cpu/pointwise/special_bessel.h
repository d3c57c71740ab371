// Bessel-type special functions in double precision (torch.special's bessel_j0/j1/y0/y1,
// modified_bessel_i0/i1/k0/k1, their scaled forms, i0/i0e/i1/i1e, airy_ai, spherical_bessel_j0).
// Written from the textbook definitions: power series where they converge without much
// cancellation, Hankel's asymptotic expansions for large arguments (J and Y: fixed-length tables,
// special_bessel_series.h), and for K_nu the integral K_nu(z) = int_0^inf exp(-z cosh t) cosh(nu t) dt
// by the trapezoidal rule, which converges geometrically for this analytic, doubly-exponentially
// decaying integrand. Scalar code (special_bessel_n.h: the array forms).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/host_device.h"
#include "kernels/cpu/pointwise/special_bessel_series.h"

namespace ember::special {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfD = std::numeric_limits<double>::infinity();
constexpr double kEuler = 0.57721566490153286061;

// J_n and Y_n: the power series below this, Hankel's expansion from it on (both ~1e-12 there)
constexpr double kHankelFrom = 12.5;
constexpr double kEulerMinusLn2 = kEuler - 0.69314718055994530942;  // ln(x/2) + gamma = ln(x) + this

// sum_k c[k] z^k by Horner's rule over the whole table: no data-dependent exit, so the array
// forms' loops vectorise and every path rounds alike.
template <int N>
EMBER_HOST_DEVICE inline double series_at(const double (&c)[N], double z) {
  double p = c[N - 1];
#if defined(__CUDACC__)
#pragma unroll
#else
#pragma GCC unroll 64  // unrolled, the array forms' element loops vectorise
#endif
  for (int k = N - 2; k >= 0; --k) p = p * z + c[k];
  return p;
}

// I_n(x) = (x/2)^n sum_k (x^2/4)^k / (k! (k+n)!) for n = 0, 1 (positive terms: no cancellation), |x| <= 30.
EMBER_HOST_DEVICE inline double bessel_i_series(double x, int n) {
  const double z = x * x;
  return n == 0 ? series_at(kI0Series, z) : 0.5 * x * series_at(kI1Series, z);
}

// e^-x sqrt(2 pi x) I_n(x) for large x > 0: sum_k (-1)^k a_k(n) / x^k,
// a_k = prod_{j<=k} (4n^2 - (2j-1)^2) / (k! 8^k).
EMBER_HOST_DEVICE inline double bessel_i_asym_scaled(double x, int n) {
  const double mu = 4.0 * n * n;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 60; ++k) {
    const double f = -(mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * x);
    const double next = term * f;
    if (std::fabs(next) >= std::fabs(term)) break;  // past the smallest term
    term = next;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
  }
  return sum / std::sqrt(2.0 * M_PI * x);
}

// I_n(x) (scaled: e^-|x| I_n(x)), n = 0 or 1; I_1 is odd.
EMBER_HOST_DEVICE inline double bessel_i(double x, int n, bool scaled) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  if (std::isinf(a)) return scaled ? (n == 1 ? std::copysign(0.0, x) : 0.0) : kNaN;
  double r;
  if (a <= 30.0) {
    r = bessel_i_series(a, n);
    if (scaled) r *= std::exp(-a);
  } else {
    r = bessel_i_asym_scaled(a, n);
    if (!scaled) r = a > 1400 ? kInfD : r * std::exp(a);
  }
  return (n == 1 && x < 0) ? -r : r;
}

// e^z K_nu(z), z > 0, by the trapezoidal rule on
// int_0^inf exp(-z (cosh t - 1)) cosh(nu t) dt, cosh t - 1 written as 2 sinh(t/2)^2 (cosh t - 1
// rounds to 0 for t below 1e-8, where a large z puts the whole integrand). The step keeps the
// discretisation error below 1e-17 relative: the integrand is analytic in the strip
// |Im t| < d with d ~ sqrt(10 / z) for large z, where it grows by at most e^5. The sum stops
// where z (cosh t - 1) = 42. Below z = 1e-9 the leading terms of the series are exact to
// double precision for nu = 0, 1 (the next are z^2 ln z smaller): K_0 = -ln(z/2) - gamma,
// K_1 = 1/z (the integral's range would grow like ln(1/z), past any bound at a subnormal z).
EMBER_HOST_DEVICE inline double bessel_k_scaled(double z, double nu) {
  if (z < 1e-9 && (nu == 0.0 || nu == 1.0))
    return (nu == 0.0 ? -(std::log(z) - M_LN2 + kEuler) : 1.0 / z) * std::exp(z);
  const double d = z > 10.0 ? std::sqrt(10.0 / z) : 1.0;
  const double h = 2.0 * M_PI * d / 45.0;
  const double t_end = 2.0 * std::asinh(std::sqrt(21.0 / z));
  double sum = 0.5;  // t = 0: exp(0) cosh(0) / 2
  for (double t = h; t <= t_end + h; t += h) {
    const double s = std::sinh(0.5 * t);
    sum += std::exp(-2.0 * z * s * s) * std::cosh(nu * t);
  }
  return sum * h;
}

// K_n(x) (scaled: e^x K_n(x)), n = 0, 1: NaN below 0, inf at 0.
EMBER_HOST_DEVICE inline double bessel_k(double x, int n, bool scaled) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInfD;
  if (std::isinf(x)) return 0.0;
  const double r = bessel_k_scaled(x, n);
  return scaled ? r : (x > 745.0 ? 0.0 : r * std::exp(-x));
}

// Hankel's expansion for x >= kHankelFrom, given sn = sin(x), cs = cos(x): J_n, Y_n = sqrt(2 / (pi x))
// (P cos chi -/+ Q sin/cos chi), chi = x - (n/2 + 1/4) pi, its cosine and sine written from sin x
// and cos x (no rounding of x - chi, exact for any x). Fixed length: the terms up to k = 26 are
// decreasing from x = 12.5 on.
EMBER_HOST_DEVICE inline void bessel_jy_asym(double x, int n, double sn, double cs, double* j, double* y) {
  const double u = 1.0 / x, w = u * u;
  const double p = series_at(n == 0 ? kJ0AsymP : kJ1AsymP, w), q = u * series_at(n == 0 ? kJ0AsymQ : kJ1AsymQ, w);
  // sqrt(2) cos chi and sqrt(2) sin chi: (cs + sn, sn - cs) for n = 0, (sn - cs, -(sn + cs)) for n = 1
  const double c0 = n == 0 ? cs + sn : sn - cs, s0 = n == 0 ? sn - cs : -(sn + cs);
  const double amp = 1.0 / std::sqrt(M_PI * x);
  *j = amp * (p * c0 - q * s0);
  *y = amp * (p * s0 + q * c0);
}

// J_n(x) for |x| < kHankelFrom from its power series sum_k (-x^2/4)^k / (k! (k+n)!) (x/2)^n.
EMBER_HOST_DEVICE inline double bessel_j_series(double x, int n) {
  const double z = x * x;
  return n == 0 ? series_at(kJ0Series, z) : 0.5 * x * series_at(kJ1Series, z);
}

// Y_n(x) for 0 < x < kHankelFrom, log_x = ln(x): with psi(k+1) = H_k - gamma, Y_n = (2/pi) (ln(x/2) + gamma) J_n(x)
// - (2/pi) [n = 1] / x - (1/pi) (x/2)^n sum_k (H_k + H_(k+n)) (-x^2/4)^k / (k! (k+n)!).
EMBER_HOST_DEVICE inline double bessel_y_series(double x, int n, double log_x) {
  const double z = x * x, g = (2.0 / M_PI) * (log_x + kEulerMinusLn2);
  if (n == 0) return g * series_at(kJ0Series, z) - series_at(kY0Series, z) / M_PI;
  const double h = 0.5 * x;
  return h * (g * series_at(kJ1Series, z) - series_at(kY1Series, z) / M_PI) - 2.0 / (M_PI * x);
}

EMBER_HOST_DEVICE inline double bessel_j(double x, int n) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  const double a = std::fabs(x);
  double r;
  if (a < kHankelFrom) {
    r = bessel_j_series(a, n);
  } else {
    double y;
    bessel_jy_asym(a, n, std::sin(a), std::cos(a), &r, &y);
  }
  return (n == 1 && x < 0) ? -r : r;
}

// Y_n(x), x > 0: the series below kHankelFrom, Hankel's expansion above.
EMBER_HOST_DEVICE inline double bessel_y(double x, int n) {
  if (std::isnan(x) || x < 0 || std::isinf(x)) return kNaN;
  if (x == 0) return -kInfD;
  if (x >= kHankelFrom) {
    double j, y;
    bessel_jy_asym(x, n, std::sin(x), std::cos(x), &j, &y);
    return y;
  }
  return bessel_y_series(x, n, std::log(x));
}

// Ai(x): Maclaurin series for -8 < x < 1 (Ai = c1 f - c2 g), (1/pi) sqrt(x/3) K_1/3(zeta) for
// x >= 1 and the oscillating asymptotic expansion for x <= -8 (zeta = 2/3 |x|^3/2).
EMBER_HOST_DEVICE inline double airy_ai(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  if (x >= 1.0) {
    const double zeta = 2.0 / 3.0 * x * std::sqrt(x);
    if (zeta > 745.0) return 0.0;
    return std::sqrt(x / 3.0) / M_PI * bessel_k_scaled(zeta, 1.0 / 3.0) * std::exp(-zeta);
  }
  if (x > -8.0) {
    const double c1 = 0.35502805388781723926, c2 = 0.25881940379280679840, x3 = x * x * x;
    double f = 1.0, g = x, tf = 1.0, tg = x;
    for (int k = 1; k < 200; ++k) {
      const double k3 = 3.0 * k;
      tf *= x3 / ((k3 - 1) * k3);
      tg *= x3 / (k3 * (k3 + 1));
      f += tf;
      g += tg;
      if (std::fabs(tf) + std::fabs(tg) < 1e-18) break;
    }
    return c1 * f - c2 * g;
  }
  // x <= -8: Ai(-a) ~ a^-1/4 / sqrt(pi) (sin(zeta + pi/4) P - cos(zeta + pi/4) Q), with
  // u_k = (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k) u_{k-1}, P = sum (-1)^k u_2k / zeta^2k,
  // Q = sum (-1)^k u_2k+1 / zeta^2k+1.
  const double a = -x, zeta = 2.0 / 3.0 * a * std::sqrt(a);
  double p = 1.0, q = 0.0, u = 1.0;
  for (int k = 1; k < 60; ++k) {
    const double next = u * (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / ((2.0 * k - 1) * 216.0 * k * zeta);
    if (std::fabs(next) >= std::fabs(u) && k > 2) break;
    u = next;
    const double s = ((k / 2) % 2) ? -u : u;
    if (k % 2) q += s;
    else p += s;
    if (std::fabs(u) < 1e-17) break;
  }
  const double phase = zeta + 0.25 * M_PI;
  return (std::sin(phase) * p - std::cos(phase) * q) / (std::sqrt(M_PI) * std::sqrt(std::sqrt(a)));
}

// j0(x) = sin(x) / x, its Taylor series near 0 (1 - x^2/6 + x^4/120 ...).
EMBER_HOST_DEVICE inline double spherical_bessel_j0(double x) {
  if (std::isinf(x)) return 0.0;
  if (std::fabs(x) < 0.5) {
    const double x2 = x * x;
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < 12; ++k) {
      term *= -x2 / ((2.0 * k) * (2.0 * k + 1));
      sum += term;
    }
    return sum;
  }
  return std::sin(x) / x;
}

}  // namespace
}  // namespace ember::special
