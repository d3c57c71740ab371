// torch.special's Bessel functions J, Y and I over contiguous float32 / float64 arrays
// (ops/special.yaml's `array:`): special_bessel.h's fixed-length series and expansions in vector
// loops, block by block, and its scalar code element by element for blocks holding arguments
// past them (NaN, infinities, huge or, for Y, non-positive). in == out is allowed.
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/cpu/pointwise/special_bessel.h"
#include "kernels/cpu/vec_math.h"

namespace ember::special {
namespace {

// J_N (Y_N when Y), N = 0, 1, in blocks of 256: the series alone where every |x| is below
// kHankelFrom; the series and Hankel's expansion (its sine and cosine vec::'s) selected per element
// where some |x| reaches it; element by element, with bessel_j / bessel_y, a block holding a NaN,
// an infinity or an |x| past vec::sin's exact range (2^26).
template <int N, bool Y, class T>
inline void bessel_jy_n(const T* in, T* out, int64_t n) {
  const auto series = [](double x) EMBER_VEC_LAMBDA {
    if constexpr (Y) return bessel_y_series(x, N, vec::log(x));
    else return bessel_j_series(x, N);
  };
  // Y's domain: NaN below 0, -inf at 0 (as bessel_y)
  const auto in_domain = [](double x, double y) EMBER_VEC_LAMBDA {
    using vec::detail::sel;
    if constexpr (Y)
      return sel(vec::detail::abs_eq(x, 0.0), -vec::detail::kInf, sel(vec::detail::sign_of(x), vec::detail::kNaN, y));
    else return y;
  };
  const auto either = [series, in_domain](double x) EMBER_VEC_LAMBDA {
    const double a = std::fabs(x);
    double j, y;
    bessel_jy_asym(a, N, vec::sin(a), vec::cos(a), &j, &y);
    const double h = Y ? y : (N == 1 ? vec::detail::sel(vec::detail::sign_of(x), -j, j) : j);  // J_1 is odd
    return in_domain(x, vec::detail::sel(vec::detail::abs_lt(x, kHankelFrom), series(x), h));
  };
  const auto past_range = [](T v) EMBER_VEC_LAMBDA { return !(std::fabs(v) <= T(vec::kTrigMax<double>)); };
  vec::detail::by_blocks_n<256>(in, out, n, past_range, [&](const T* x, T* r, int64_t m, bool scalar) {
    if (scalar) {
      for (int64_t i = 0; i < m; ++i) {
        const double v = static_cast<double>(x[i]);
        r[i] = static_cast<T>(Y ? bessel_y(v, N) : bessel_j(v, N));
      }
      return;
    }
    int hankel = 0;
#pragma omp simd reduction(| : hankel)
    for (int64_t i = 0; i < m; ++i) hankel |= !(std::fabs(x[i]) < T(kHankelFrom));
    if (hankel) {
#pragma omp simd
      for (int64_t i = 0; i < m; ++i) r[i] = static_cast<T>(either(static_cast<double>(x[i])));
    } else {
#pragma omp simd
      for (int64_t i = 0; i < m; ++i) {
        const double v = static_cast<double>(x[i]);
        r[i] = static_cast<T>(in_domain(v, series(v)));
      }
    }
  });
}

// I_0 / I_1, e^-|x| I_n when Scaled: the series for |x| <= 30, as bessel_i (the scaling vec::exp's).
template <int N, bool Scaled, class T>
inline void bessel_i_n(const T* in, T* out, int64_t n) {
  vec::detail::map_or_scalar_n(
      in, out, n,
      [](T v) EMBER_VEC_LAMBDA {
        const double x = static_cast<double>(v);
        const double r = bessel_i_series(x, N);
        return static_cast<T>(Scaled ? r * vec::exp(-std::fabs(x)) : r);
      },
      [](T v) { return static_cast<T>(bessel_i(static_cast<double>(v), N, Scaled)); },
      [](T v) EMBER_VEC_LAMBDA { return !(std::fabs(v) <= T(30)); });
}

}  // namespace
}  // namespace ember::special
