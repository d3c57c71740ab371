// Scalar bodies of the pointwise loss kernels (ops/nn_loss.yaml): smooth_l1, huber, mse and their
// backwards, in the op-math type T, term by term as PyTorch's vectorised CPU kernels (whose
// blends these selects are). A NaN difference gives NaN both ways.
//
// S is the tensor's dtype. aten computes most half-type cases in float and rounds once, but
// some in the half type itself, rounding after every step with beta / delta / norm held in it
// (measured against torch 2.13's CPU kernels): smooth_l1 for float16, huber and its backward for
// bfloat16, and huber's backward for float16 (step_in names the half types a body rounds in).
#pragma once
#include <cmath>
#include <type_traits>

#include "core/half.h"
#include "kernels/cpu/vec_math.h"

namespace ember::ops {
namespace {

// x rounded to S where S is one of the types Rs (a step aten computes in that half type), else x.
template <class S, class... Rs, class T>
EMBER_VEC_INLINE T step_in(T x) {
  if constexpr ((std::is_same_v<S, Rs> || ...)) return static_cast<T>(static_cast<S>(x));
  else return x;
}

// |x - y| < beta ? 0.5 z^2 / beta : z - beta / 2
template <class T, class S>
EMBER_VEC_INLINE T smooth_l1_(T x, T y, T beta) {
  const T b = step_in<S, Half>(beta), z = std::fabs(step_in<S, Half>(x - y));
  const T quadratic = step_in<S, Half>(step_in<S, Half>(step_in<S, Half>(T(0.5) * z) * z) / b);
  return z < b ? quadratic : step_in<S, Half>(z - step_in<S, Half>(T(0.5) * b));
}
// |x - y| < delta ? 0.5 z^2 : delta (z - delta / 2)
template <class T, class S>
EMBER_VEC_INLINE T huber_(T x, T y, T delta) {
  const T dl = step_in<S, BFloat16>(delta), z = std::fabs(step_in<S, BFloat16>(x - y));
  const T linear = step_in<S, BFloat16>(dl * step_in<S, BFloat16>(z - step_in<S, BFloat16>(T(0.5) * dl)));
  return z < dl ? step_in<S, BFloat16>(step_in<S, BFloat16>(T(0.5) * z) * z) : linear;
}

// The slopes: sign(d) where |d| >= beta (d = x - y), else d / beta (d for huber, delta * sign
// beyond), times norm, then the incoming gradient g.
template <class T>
EMBER_VEC_INLINE T smooth_l1_backward_(T x, T y, T g, T norm, T beta) {
  const T d = x - y;
  const T sign = d > T(0) ? T(1) : T(-1);
  return norm * (std::fabs(d) >= beta ? sign : d / beta) * g;
}
template <class T, class S>
EMBER_VEC_INLINE T huber_backward_(T x, T y, T g, T norm, T delta) {
  const T dl = step_in<S, Half, BFloat16>(delta), d = step_in<S, Half, BFloat16>(x - y);
  const T sign = d > T(0) ? T(1) : T(-1);
  const T slope = std::fabs(d) >= dl ? step_in<S, Half, BFloat16>(sign * dl) : d;
  return step_in<S, Half, BFloat16>(step_in<S, Half, BFloat16>(step_in<S, Half, BFloat16>(norm) * slope) * g);
}

// (x - y)^2, the difference rounded to S first (aten's sub, then its square)
template <class T, class S>
EMBER_VEC_INLINE T mse_(T x, T y) {
  const T d = step_in<S, Half, BFloat16>(x - y);
  return d * d;
}

// norm * (x - y) * g in one pass, rounding after each step in S (aten's kernel in the half types
// computes in them; the three ops it replaces rounded the same way)
template <class T, class S>
EMBER_VEC_INLINE T mse_backward_(T x, T y, T g, T norm) {
  const T scaled = step_in<S, Half, BFloat16>(step_in<S, Half, BFloat16>(norm) * step_in<S, Half, BFloat16>(x - y));
  return step_in<S, Half, BFloat16>(scaled * g);
}

}  // namespace
}  // namespace ember::ops
