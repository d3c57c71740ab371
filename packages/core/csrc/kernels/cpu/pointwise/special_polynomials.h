// Orthogonal polynomials of torch.special (Chebyshev T/U/V/W and their shifted forms, Hermite
// H/He, Laguerre L, Legendre P) at x for degree n. n arrives as a floating value: it is
// truncated to an integer; a negative, NaN or out-of-int64 degree gives 0, as PyTorch's
// conversion does on x86. Evaluated in T by the three-term recurrences (so overflow behaves as
// in PyTorch), with the closed trigonometric forms for high degrees inside (-1, 1).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/host_device.h"

namespace ember::special {
namespace {

// The degree as an int64, or -1 where it is negative / NaN / beyond int64 (result 0).
template <class T>
EMBER_HOST_DEVICE inline int64_t poly_degree(T n) {
  const double d = static_cast<double>(n);
  if (!(d > -1.0 && d < 9.2233720368547758e18)) return -1;
  return static_cast<int64_t>(d);
}

// p_{k+1} = step(k, p_k, p_{k-1}) from p0, p1; stops at a NaN, which every later step keeps (as
// PyTorch's loops do: a huge degree past the overflow ends there instead of running on).
template <class T, class F>
EMBER_HOST_DEVICE inline T poly_recurrence(int64_t n, T p0, T p1, F step) {
  if (n == 0) return p0;
  if (n == 1) return p1;
  T p = p0, q = p1, r = p1;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    r = step(k, q, p);
    p = q;
    q = r;
  }
  return r;
}

template <class T>
EMBER_HOST_DEVICE inline T chebyshev_t(T x, T nf) {
  const int64_t n = poly_degree(nf);
  if (n < 0) return T(0);
  if (std::fabs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n > 6 && std::fabs(x) < T(1)) return std::cos(static_cast<T>(n) * std::acos(x));
  return poly_recurrence<T>(n, T(1), x, [x](int64_t, T q, T p) { return (x + x) * q - p; });
}

template <class T>
EMBER_HOST_DEVICE inline T chebyshev_u(T x, T nf) {
  const int64_t n = poly_degree(nf);
  if (n < 0) return T(0);
  const T np1 = static_cast<T>(n + 1);
  if (std::fabs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? np1 : -np1;
  if (n > 8 && std::fabs(x) < T(1)) {
    const T th = std::acos(x);
    if (std::sin(th) != T(0)) return std::sin(np1 * th) / std::sin(th);
    return np1 * std::cos(np1 * th) / std::cos(th);
  }
  return poly_recurrence<T>(n, T(1), x + x, [x](int64_t, T q, T p) { return (x + x) * q - p; });
}

template <class T>
EMBER_HOST_DEVICE inline T chebyshev_v(T x, T nf) {
  const int64_t n = poly_degree(nf);
  if (n < 0) return T(0);
  if (std::fabs(x) == T(1)) {
    if (x > T(0)) return T(1);
    const T v = static_cast<T>(n + n + 1);
    return n % 2 == 0 ? v : -v;
  }
  if (n > 8 && std::fabs(x) < T(1)) {
    const T th = std::acos(x), h = static_cast<T>(n) + T(0.5);
    if (std::sin(th / T(2)) != T(1)) return std::cos(h * th) / std::cos(th / T(2));
    return n % 2 == 0 ? static_cast<T>(n + n + 1) : -static_cast<T>(n + n + 1);
  }
  return poly_recurrence<T>(n, T(1), x + x - T(1), [x](int64_t, T q, T p) { return (x + x) * q - p; });
}

template <class T>
EMBER_HOST_DEVICE inline T chebyshev_w(T x, T nf) {
  const int64_t n = poly_degree(nf);
  if (n < 0) return T(0);
  if (std::fabs(x) == T(1)) {
    if (x > T(0)) return static_cast<T>(n + n + 1);
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n > 8 && std::fabs(x) < T(1)) {
    const T th = std::acos(x), h = static_cast<T>(n) + T(0.5);
    if (std::cos(th / T(2)) != T(1)) return std::sin(h * th) / std::sin(th / T(2));
    return x > T(0) ? static_cast<T>(n + n + 1) : (n % 2 == 0 ? T(1) : T(-1));
  }
  return poly_recurrence<T>(n, T(1), x + x + T(1), [x](int64_t, T q, T p) { return (x + x) * q - p; });
}

// The shifted forms are the plain ones at 2x - 1 (on [0, 1]).
template <class T>
EMBER_HOST_DEVICE inline T shifted_chebyshev_t(T x, T n) {
  return chebyshev_t(x + x - T(1), n);
}
template <class T>
EMBER_HOST_DEVICE inline T shifted_chebyshev_u(T x, T n) {
  return chebyshev_u(x + x - T(1), n);
}
template <class T>
EMBER_HOST_DEVICE inline T shifted_chebyshev_v(T x, T n) {
  return chebyshev_v(x + x - T(1), n);
}
template <class T>
EMBER_HOST_DEVICE inline T shifted_chebyshev_w(T x, T n) {
  return chebyshev_w(x + x - T(1), n);
}

// PyTorch's Hermite kernels answer NaN past a degree (128 in float, 512 in double) instead of
// running the recurrence: a huge degree must not loop for ever.
template <class T>
EMBER_HOST_DEVICE inline bool hermite_past_limit(int64_t n) {
  return n > (sizeof(T) == sizeof(float) ? 128 : 512);
}

// Physicists' Hermite: H_{k+1} = 2x H_k - 2k H_{k-1}.
template <class T>
EMBER_HOST_DEVICE inline T hermite_h(T x, T nf) {
  const int64_t n = poly_degree(nf);
  if (n < 0) return T(0);
  if (n > 1 && hermite_past_limit<T>(n)) return std::numeric_limits<T>::quiet_NaN();
  return poly_recurrence<T>(n, T(1), x + x,
                            [x](int64_t k, T q, T p) { return (x + x) * q - static_cast<T>(k + k) * p; });
}

// Probabilists' Hermite: He_{k+1} = x He_k - k He_{k-1}.
template <class T>
EMBER_HOST_DEVICE inline T hermite_he(T x, T nf) {
  const int64_t n = poly_degree(nf);
  if (n < 0) return T(0);
  if (n > 1 && hermite_past_limit<T>(n)) return std::numeric_limits<T>::quiet_NaN();
  return poly_recurrence<T>(n, T(1), x, [x](int64_t k, T q, T p) { return x * q - static_cast<T>(k) * p; });
}

// Laguerre: (k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; L_n(0) = 1.
template <class T>
EMBER_HOST_DEVICE inline T laguerre_l(T x, T nf) {
  const int64_t n = poly_degree(nf);
  if (n < 0) return T(0);
  if (x == T(0)) return T(1);
  // grouped as PyTorch's: (2k + (1 - x)), with 2k and k + 1 formed as integers
  return poly_recurrence<T>(n, T(1), T(1) - x, [x](int64_t k, T q, T p) {
    return ((static_cast<T>(k + k) + (T(1) - x)) * q - static_cast<T>(k) * p) / static_cast<T>(k + 1);
  });
}

// Legendre: (k+1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}; P_n(1) = 1, P_n(-1) = (-1)^n.
template <class T>
EMBER_HOST_DEVICE inline T legendre_p(T x, T nf) {
  const int64_t n = poly_degree(nf);
  if (n < 0) return T(0);
  if (std::fabs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  return poly_recurrence<T>(n, T(1), x, [x](int64_t k, T q, T p) {
    const T kk = static_cast<T>(k);
    return ((kk + kk + T(1)) * x * q - kk * p) / (kk + T(1));
  });
}

}  // namespace
}  // namespace ember::special
