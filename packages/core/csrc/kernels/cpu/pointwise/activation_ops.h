// Scalar bodies of the activation kernels (ops/nn_activation.yaml), in the
// op-math type T (float for float16/bfloat16: one rounding at the end). They
// follow PyTorch's CPU formulas term by term, and use ember::vec's erf / tanh /
// exp so that the contiguous loop vectorises.
#pragma once
#include <cmath>

#include "kernels/cpu/vec_math.h"
#include "kernels/cpu/vec_normcdf.h"

namespace ember::ops {
namespace {

// gelu(x) = x Phi(x) = x/2 (1 + erf(x/sqrt(2))): +inf -> inf, -inf -> nan (-inf * 0), as PyTorch's
// scalar path. Phi from vec::normcdf (in float one formula without 1 + erf's cancellation).
template <class T>
EMBER_VEC_INLINE T gelu_erf(T x) {
  return x * vec::normcdf(x);
}
// d gelu / dx = Phi(x) + x phi(x), phi the standard normal density.
template <class T>
EMBER_VEC_INLINE T gelu_erf_backward(T dy, T x) {
  const T cdf = vec::normcdf(x);
  const T pdf = T(M_2_SQRTPI * M_SQRT1_2 * 0.5) * vec::exp(x * x * T(-0.5));
  return dy * (cdf + x * pdf);
}

// The tanh form: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
constexpr double kGeluBeta = M_SQRT2 * M_2_SQRTPI * 0.5;
constexpr double kGeluKappa = 0.044715;
template <class T>
EMBER_VEC_INLINE T gelu_tanh(T x) {
  const T inner = T(kGeluBeta) * (x + T(kGeluKappa) * (x * x * x));
  return T(0.5) * x * (T(1) + vec::tanh(inner));
}
template <class T>
EMBER_VEC_INLINE T gelu_tanh_backward(T dy, T x) {
  const T x_sq = x * x;
  const T t = vec::tanh(T(kGeluBeta) * (x + T(kGeluKappa) * (x_sq * x)));
  const T left = T(0.5) * x;
  const T left_derivative = T(0.5) * (T(1) + t);
  const T inner_derivative = T(kGeluBeta) * (T(1) + T(3 * kGeluKappa) * x_sq);
  const T right_derivative = left * (T(1) - t * t) * inner_derivative;
  return dy * (left_derivative + right_derivative);
}

// grad * sigmoid(x beta) below the threshold, grad above it (PyTorch's softplus_backward).
template <class T>
EMBER_VEC_INLINE T softplus_backward_(T dy, T x, T beta, T threshold) {
  const T z = vec::exp(x * beta);
  return (x * beta) > threshold ? dy : dy * z / (z + T(1));
}

// aten's elu kernel (selu and celu are elu too): x * scale from 0 up (and at NaN), else
// expm1(x * input_scale) * (alpha * scale), the coefficient rounded once in T as aten's negcoef.
template <class T>
EMBER_VEC_INLINE T elu_(T x, T alpha, T scale, T input_scale) {
  return x < T(0) ? vec::expm1(x * input_scale) * (alpha * scale) : x * scale;
}
// Its derivative from the input: dy * input_scale * (alpha * scale) * e^(x input_scale) at or below 0.
template <class T>
EMBER_VEC_INLINE T elu_backward_(T dy, T x, T alpha, T scale, T input_scale) {
  return x <= T(0) ? dy * input_scale * (alpha * scale) * vec::exp(x * input_scale) : dy * scale;
}
// ... and from the result y (the in-place forms): e^(x input_scale) * alpha * scale = y + alpha * scale.
template <class T>
EMBER_VEC_INLINE T elu_backward_result_(T dy, T y, T alpha, T scale, T input_scale) {
  return y <= T(0) ? dy * input_scale * (y + alpha * scale) : dy * scale;
}

// x - lambd above lambd, x + lambd below -lambd, +0 between; NaN passes (aten's softshrink). As a
// sum of the two one-sided terms (lambd >= 0: at most one is nonzero, and + 0 keeps it exact), the
// loop is two selects and an add, half the time of the nested selects'.
template <class T>
EMBER_VEC_INLINE T softshrink_(T x, T lambd) {
  const T above = x > lambd ? x - lambd : T(0), below = x < -lambd ? x + lambd : T(0);
  return x != x ? x : above + below;
}

// log(sigmoid(x)) = min(x, 0) - log1p(e^-|x|) (aten's log_sigmoid_forward; e^-|x| is its buffer).
template <class T>
EMBER_VEC_INLINE T log_sigmoid_(T x) {
  const T m = x < T(0) ? x : T(0);
  return m - vec::log1p(vec::exp(-std::fabs(x)));
}
// Its derivative from that buffer z = e^-|x|: 1 - z / (1 + z) below 0, z / (1 + z) from 0 up, times dy.
template <class T>
EMBER_VEC_INLINE T log_sigmoid_backward_(T dy, T x, T z) {
  const bool negative = x < T(0);
  const T max_deriv = negative ? T(1) : T(0), sign = negative ? T(1) : T(-1);
  return (max_deriv - sign * (z / (T(1) + z))) * dy;
}

// silu(x) = x / (1 + e^-x): -0 for a large negative x (e^-x is inf), NaN at -inf, as aten's.
template <class T>
EMBER_VEC_INLINE T silu_(T x) {
  return x / (T(1) + vec::exp(-x));
}
// dy * s (1 + x (1 - s)), s = 1 / (1 + e^-x) (aten's silu_backward).
template <class T>
EMBER_VEC_INLINE T silu_backward_(T dy, T x) {
  const T s = T(1) / (T(1) + vec::exp(-x));
  return dy * s * (T(1) + x * (T(1) - s));
}

// x * min(max(x + 3, 0), 6) / 6, NaN kept (aten's kernel: the product before the division).
template <class T>
EMBER_VEC_INLINE T hardswish_(T x) {
  T y = x + T(3);
  y = (y < T(0)) ? T(0) : y;
  y = (T(6) < y) ? T(6) : y;
  return x * y / T(6);
}
// 0 at or below -3, dy (x / 3 + 1/2) below 3, dy from 3 up (a NaN x passes dy: aten's scalar path).
template <class T>
EMBER_VEC_INLINE T hardswish_backward_(T dy, T x) {
  const T mid = dy * (x / T(3) + T(0.5));
  return x <= T(-3) ? T(0) : (x < T(3) ? mid : dy);
}

// min(max(x + 3, 0), 6) / 6 with NaN kept (std::max / std::min order, as PyTorch's kernel).
template <class T>
EMBER_VEC_INLINE T hardsigmoid_(T x) {
  T y = x + T(3);
  y = (y < T(0)) ? T(0) : y;
  y = (T(6) < y) ? T(6) : y;
  return y / T(6);
}

}  // namespace
}  // namespace ember::ops
