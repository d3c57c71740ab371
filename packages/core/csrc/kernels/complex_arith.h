// The complex product and quotient c10::complex computes, on any {re, im} pair type: the
// textbook product (no C99 Annex G inf / NaN recovery) and the scaled quotient NumPy also uses
// (no overflow in c^2 + d^2). One text for the CPU kernels and the GPU's (host and device).
#pragma once
#include <cmath>

#include "core/host_device.h"

namespace ember::complex_arith {

template <class C>
EMBER_VEC_INLINE C mul(C a, C b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

template <class C>
EMBER_VEC_INLINE C div(C x, C y) {
  using std::fabs;
  using R = decltype(x.re);
  const R a = x.re, b = x.im, c = y.re, d = y.im;
  const R ac = fabs(c), ad = fabs(d);
  if (ac >= ad) {
    if (ac == 0 && ad == 0) return {a / ac, b / ad};  // a complex inf or NaN, as c10 gives
    const R rat = d / c, scl = R(1) / (c + d * rat);
    return {(a + b * rat) * scl, (b - a * rat) * scl};
  }
  const R rat = c / d, scl = R(1) / (d + c * rat);
  return {(a * rat + b) * scl, (b * rat - a) * scl};
}

}  // namespace ember::complex_arith
