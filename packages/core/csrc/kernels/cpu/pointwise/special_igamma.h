// The regularized incomplete gamma functions P(a, x) (torch.igamma / special.gammainc) and
// Q(a, x) = 1 - P (igammac / gammaincc), in double. PyTorch's edge order and regions (SciPy's):
// Temme's uniform expansion where x is near a large a, else the power series of P (DLMF 8.11.4)
// or of Q (8.7.3) for small x, and Legendre's continued fraction of Q (8.9.2) for x > a.
#pragma once
#include <cmath>
#include <iterator>
#include <limits>

#include "core/host_device.h"
#include "kernels/cpu/pointwise/special_igamma_coeffs.h"

namespace ember::special {
namespace {

// Every sum stops once a term is below eps of it: 2^-53 for double results, 2^-32 for float and the
// half types (rounded to float anyway: PyTorch's float kernel stops at float's epsilon too).
constexpr double kIgammaEpsDouble = 1.11022302462515654042e-16;
constexpr double kIgammaEpsFloat = 2.3283064365386963e-10;
constexpr int kIgammaMaxIter = 2000;

// log(1 + s) - s without cancellation for |s| <= 0.4: with t = s / (2 + s), log(1 + s) = 2 atanh(t),
// so the result is -s^2 / (2 + s) + 2 (t^3/3 + t^5/5 + ...), |t| <= 1/4.
EMBER_HOST_DEVICE inline double log1pmx(double s) {
  if (std::fabs(s) > 0.4) return std::log1p(s) - s;
  const double t = s / (2.0 + s), t2 = t * t;
  double pw = t * t2, sum = 0.0;
  for (int k = 3; k < 60; k += 2) {
    const double term = pw / k;
    sum += term;
    if (std::fabs(term) <= kIgammaEpsDouble * std::fabs(sum)) break;
    pw *= t2;
  }
  return -s * s / (2.0 + s) + 2.0 * sum;
}

// lgamma(1 + a), accurate where 1 + a rounds (|a| < 0.5 through the Taylor series of 1 / Gamma).
EMBER_HOST_DEVICE inline double lgamma1p(double a) {
  if (std::fabs(a) >= 0.5) return std::lgamma(1.0 + a);
  double poly = 0.0;
  for (int k = static_cast<int>(std::size(kRgamma1p)) - 1; k >= 0; --k) poly = poly * a + kRgamma1p[k];
  return -std::log1p(poly * a);
}

// x^a e^-x / Gamma(a), without the cancellation of a log x - x - lgamma(a) (its rounding error,
// eps * x, becomes the result's relative error). For a >= 10 as sqrt(a / 2 pi) exp(a log1pmx((x - a) / a))
// / Gamma*(a), Gamma*(a) = Gamma(a) e^a a^(1/2 - a) / sqrt(2 pi) by Stirling's series; for a < 10 and
// x < 700 as a product of correctly rounded factors.
EMBER_HOST_DEVICE inline double igamma_prefactor(double a, double x) {
  if (a < 10.0) {
    if (x < 700.0) return std::exp(-x) * std::pow(x, a) / std::tgamma(a);
    const double e = a * std::log(x) - x - std::lgamma(a);
    return e < -746.0 ? 0.0 : std::exp(e);  // below: exp underflows to zero anyway
  }
  // log Gamma*(a) = sum_m B_2m / (2m (2m - 1) a^(2m - 1)): eight terms reach double precision at a = 10
  constexpr double kStirling[] = {1.0 / 12,   -1.0 / 360,      1.0 / 1260, -1.0 / 1680,
                                  1.0 / 1188, -691.0 / 360360, 1.0 / 156,  -3617.0 / 122400};
  const double r = 1.0 / a, r2 = r * r;
  double log_gstar = 0.0;
  for (int m = 7; m >= 0; --m) log_gstar = log_gstar * r2 + kStirling[m];
  log_gstar *= r;
  // a (log(x / a) - (x - a) / a), through log1pmx near x = a; log(x / a) keeps a tiny x / a exact
  const double s = (x - a) / a, t = x / a;
  double expo = a * log1pmx(s);
  if (std::fabs(s) > 0.4) {
    const double log_t = t >= std::numeric_limits<double>::min() ? std::log(t) : std::log(x) - std::log(a);
    expo = a * log_t - (x - a);
  }
  return std::sqrt(a / (2.0 * M_PI)) * std::exp(expo - log_gstar);
}

// P (lower = true) or Q by Temme's expansion:
// erfc(-+eta sqrt(a/2)) / 2 -+ e^(-a eta^2/2) / sqrt(2 pi a) sum_k c_k(eta) a^-k.
EMBER_HOST_DEVICE inline double igamma_temme(double a, double x, bool lower, double eps) {
  const double s = (x - a) / a;
  const double eta = std::copysign(std::sqrt(-2.0 * log1pmx(s)), s);
  constexpr int K = static_cast<int>(std::size(kTemme[0])), N = static_cast<int>(std::size(kTemme));
  double etapow[N];  // eta^n, shared by every c_k
  etapow[0] = 1.0;
  for (int n = 1; n < N; ++n) etapow[n] = etapow[n - 1] * eta;
  double sum = 0.0, ak = 1.0, prev = std::numeric_limits<double>::infinity();
  for (int k = 0; k < K; ++k) {
    double ck = kTemme[0][k];  // c_k(eta), summed upwards until the terms fall below eps
    for (int n = 1; n < N; ++n) {
      const double t = kTemme[n][k] * etapow[n];
      ck += t;
      if (std::fabs(t) < eps * std::fabs(ck)) break;
    }
    const double term = ck * ak;
    if (std::fabs(term) > prev) break;  // the asymptotic series starts to diverge
    sum += term;
    if (std::fabs(term) < eps * std::fabs(sum)) break;
    prev = std::fabs(term);
    ak /= a;
  }
  const double sgn = lower ? -1.0 : 1.0;
  return 0.5 * std::erfc(sgn * eta * std::sqrt(0.5 * a)) +
         sgn * std::exp(-0.5 * a * eta * eta) * sum / std::sqrt(2.0 * M_PI * a);
}

// P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n)).
EMBER_HOST_DEVICE inline double igamma_series(double a, double x, double eps) {
  const double fac = igamma_prefactor(a, x);
  if (fac == 0.0) return 0.0;
  double term = 1.0, sum = 1.0, d = a;
  for (int i = 0; i < kIgammaMaxIter; ++i) {
    d += 1.0;
    term *= x / d;
    sum += term;
    if (term <= eps * sum) break;
  }
  return sum * fac / a;
}

// Q(a, x) = 1 - x^a / Gamma(a + 1) - x^a / Gamma(a) * sum_{n >= 1} (-x)^n / (n! (a + n)), for small x.
EMBER_HOST_DEVICE inline double igammac_series(double a, double x, double eps) {
  double fac = 1.0, sum = 0.0;
  for (int n = 1; n < kIgammaMaxIter; ++n) {
    fac *= -x / n;
    const double term = fac / (a + n);
    sum += term;
    if (std::fabs(term) <= eps * std::fabs(sum)) break;
  }
  // x^a / Gamma(a) as a x^a / Gamma(1 + a): lgamma(a) ~ -log(a) would lose a's last digits
  const double e = a * std::log(x) - lgamma1p(a);
  const double q = -std::expm1(e) - a * std::exp(e) * sum;
  return q <= 0.0 ? 0.0 : q;  // a denormal a: both terms round to zero, and not to -0 (NaN stays)
}

// Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))),
// by the convergents' three-term recurrences (rescaled before they overflow): the division that
// tests convergence is off the recurrence's dependency chain, so iterations overlap.
EMBER_HOST_DEVICE inline double igammac_fraction(double a, double x, double eps) {
  const double fac = igamma_prefactor(a, x);
  if (fac == 0.0) return 0.0;
  const double b0 = x + 1.0 - a;
  double num_prev = 0.0, den_prev = 1.0, num = 1.0, den = b0, h = 1.0 / b0;
  for (int i = 1; i < kIgammaMaxIter; ++i) {
    const double an = -i * (i - a), bn = b0 + 2.0 * i;
    const double num_next = bn * num + an * num_prev, den_next = bn * den + an * den_prev;
    num_prev = num, den_prev = den, num = num_next, den = den_next;
    if (std::fabs(den) > 1e150) {
      num_prev *= 1e-150, den_prev *= 1e-150, num *= 1e-150, den *= 1e-150;
    }
    if (den != 0.0) {
      const double r = num / den;
      const bool done = std::fabs(r - h) <= eps * std::fabs(r);
      h = r;
      if (done) break;
    }
  }
  return fac * h;
}

// PyTorch's boundary values (SciPy's), shared by P and Q: a negative argument, a == 0, x == 0
// and the infinities. Returns false where the value has to be computed.
EMBER_HOST_DEVICE inline bool igamma_edge(double a, double x, bool lower, double& out) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double p0 = lower ? 0.0 : 1.0, p1 = 1.0 - p0;  // the value of P at x -> 0 and at x -> inf
  if (x < 0 || a < 0) out = nan;
  else if (a == 0) out = x > 0 ? p1 : nan;
  else if (x == 0) out = p0;
  else if (std::isinf(a)) out = std::isinf(x) ? nan : p0;
  else if (std::isinf(x)) out = p1;
  else return false;
  return true;
}

// Temme's region: a in (20, 200) with |x - a| / a < 0.3, or a > 200 with |x - a| / a < 4.5 / sqrt(a).
EMBER_HOST_DEVICE inline bool igamma_use_temme(double a, double x) {
  const double r = std::fabs(x - a) / a;
  return (a > 20 && a < 200 && r < 0.3) || (a > 200 && r < 4.5 / std::sqrt(a));
}

EMBER_HOST_DEVICE inline double igammac(double a, double x, double eps = kIgammaEpsDouble) {
  double edge;
  if (igamma_edge(a, x, false, edge)) return edge;
  if (igamma_use_temme(a, x)) return igamma_temme(a, x, false, eps);
  // Q from its own series or fraction where Q is the small side, else 1 - P
  const bool p_small = x > 1.1 ? x < a : (x <= 0.5 ? -0.4 / std::log(x) < a : x * 1.1 < a);
  if (p_small) return 1.0 - igamma_series(a, x, eps);
  return x > 1.1 ? igammac_fraction(a, x, eps) : igammac_series(a, x, eps);
}

EMBER_HOST_DEVICE inline double igamma(double a, double x, double eps = kIgammaEpsDouble) {
  double edge;
  if (igamma_edge(a, x, true, edge)) return edge;
  if (igamma_use_temme(a, x)) return igamma_temme(a, x, true, eps);
  if (x > 1.0 && x > a) return 1.0 - igammac(a, x, eps);
  return igamma_series(a, x, eps);
}

}  // namespace
}  // namespace ember::special

namespace ember::ops {
namespace {

// Every dtype computes in double and rounds once (PyTorch computes float32 in float, up to ~5e-4
// off: tests/torch_known_wrong.py), with the sums cut at the result type's precision.
template <class T>
EMBER_HOST_DEVICE inline T igamma(T a, T x) {
  constexpr double eps = sizeof(T) >= sizeof(double) ? special::kIgammaEpsDouble : special::kIgammaEpsFloat;
  return static_cast<T>(special::igamma(static_cast<double>(a), static_cast<double>(x), eps));
}
template <class T>
EMBER_HOST_DEVICE inline T igammac(T a, T x) {
  constexpr double eps = sizeof(T) >= sizeof(double) ? special::kIgammaEpsDouble : special::kIgammaEpsFloat;
  return static_cast<T>(special::igammac(static_cast<double>(a), static_cast<double>(x), eps));
}

}  // namespace
}  // namespace ember::ops
