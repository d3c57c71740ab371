// Scalar helpers the kernel bodies in ops.yaml call. Each matches PyTorch's
// semantics per dtype (floor division, remainder sign, NaN propagation).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/error.h"
#include "core/host_device.h"
#include "kernels/cpu/vec_erfc.h"
#include "kernels/cpu/vec_hyperbolic.h"
#include "kernels/cpu/vec_inverse_trig.h"
#include "kernels/cpu/vec_lgamma.h"
#include "kernels/cpu/vec_math.h"

#include "kernels/cpu/pointwise/activation_ops.h"
#include "kernels/cpu/pointwise/gelu_table.h"
#include "kernels/cpu/pointwise/loss_ops.h"
#include "kernels/cpu/pointwise/sigmoid_n.h"
#include "kernels/cpu/pointwise/sin_cos_n.h"
#include "kernels/cpu/pointwise/special_math.h"
#include "kernels/cpu/pointwise/special_ops.h"

namespace ember::ops {
// Internal linkage: this header is compiled once per CPU capability (see
// backend_cpu.cpp), so its functions must not merge across those builds.
namespace {

template <class T>
constexpr bool is_fp = std::is_floating_point_v<T>;

template <class T>
EMBER_VEC_INLINE bool truthy(T x) {
  return x != T(0);
}
template <class T>
EMBER_VEC_INLINE bool isnan_(T x) {
  if constexpr (is_fp<T>) return x != x;
  else return false;
}
template <class T>
EMBER_VEC_INLINE bool isinf_(T x) {
  if constexpr (is_fp<T>) return std::abs(x) == std::numeric_limits<T>::infinity();
  else return false;
}
template <class T>
EMBER_VEC_INLINE bool signbit_(T x) {
  // Not std::signbit: GCC 12 crashes (ICE) vectorising it under omp simd.
  if constexpr (is_fp<T>) return std::copysign(T(1), x) < T(0);
  else return x < T(0);
}

template <class T>
EMBER_VEC_INLINE T abs_(T x) {
  if constexpr (is_fp<T>) return std::abs(x);
  else if constexpr (std::is_unsigned_v<T>) return x;
  else return static_cast<T>(x < 0 ? T(-x) : x);  // int8(-128).abs() stays -128, as in PyTorch
}
template <class T>
EMBER_VEC_INLINE T neg_(T x) {
  if constexpr (std::is_unsigned_v<T>) return static_cast<T>(T(0) - x);
  else return static_cast<T>(-x);
}
template <class T>
EMBER_VEC_INLINE T floor_(T x) {
  if constexpr (is_fp<T>) return std::floor(x);
  else return x;
}
template <class T>
EMBER_VEC_INLINE T ceil_(T x) {
  if constexpr (is_fp<T>) return std::ceil(x);
  else return x;
}
template <class T>
EMBER_VEC_INLINE T trunc_(T x) {
  if constexpr (is_fp<T>) return std::trunc(x);
  else return x;
}
template <class T>
EMBER_VEC_INLINE T round_(T x) {
  if constexpr (is_fp<T>) return std::nearbyint(x);
  else return x;
}  // half to even
template <class T>
EMBER_VEC_INLINE T round_decimals(T x, T decimals) {
  // Scale, round half-to-even, unscale; negative decimals round to tens etc.
  int d = static_cast<int>(decimals);
  T p = static_cast<T>(std::pow(T(10), std::abs(d)));
  return d >= 0 ? std::nearbyint(x * p) / p : std::nearbyint(x / p) * p;
}
template <class T>
EMBER_VEC_INLINE T sign_(T x) {
  if constexpr (std::is_same_v<T, bool>) return x;
  else if constexpr (is_fp<T>) return static_cast<T>((T(0) < x) - (x < T(0)));  // sign(nan) = 0
  else if constexpr (std::is_unsigned_v<T>) return static_cast<T>(x > 0);
  else return static_cast<T>((T(0) < x) - (x < T(0)));
}
template <class T>
EMBER_VEC_INLINE T bitwise_not_(T x) {
  if constexpr (std::is_same_v<T, bool>) return !x;
  else return static_cast<T>(~x);
}

template <class T>
EMBER_VEC_INLINE T maximum_(T a, T b) {
  if constexpr (is_fp<T>) return (a != a) ? a : (b != b) ? b : (a > b ? a : b);
  else return a > b ? a : b;
}
template <class T>
EMBER_VEC_INLINE T minimum_(T a, T b) {
  if constexpr (is_fp<T>) return (a != a) ? a : (b != b) ? b : (a < b ? a : b);
  else return a < b ? a : b;
}
template <class T>
EMBER_VEC_INLINE T fmax_(T a, T b) {
  if constexpr (is_fp<T>) return std::fmax(a, b);
  else return a > b ? a : b;
}
template <class T>
EMBER_VEC_INLINE T fmin_(T a, T b) {
  if constexpr (is_fp<T>) return std::fmin(a, b);
  else return a < b ? a : b;
}
template <class T>
EMBER_VEC_INLINE T clamp_min_(T x, T lo) {
  // a NaN x fails x < lo and stays (one compare and blend a lane, as relu's kernel was); a NaN bound wins
  if constexpr (is_fp<T>) return (lo != lo) ? lo : (x < lo ? lo : x);
  else return x < lo ? lo : x;
}
template <class T>
EMBER_VEC_INLINE T clamp_max_(T x, T hi) {
  if constexpr (is_fp<T>) return (x != x) ? x : (hi != hi) ? hi : (x > hi ? hi : x);
  else return x > hi ? hi : x;
}
// clamp between two bounds that are not NaN (clamp's op fills the result when one is): a NaN x
// fails both compares and stays, so two compares and two blends a lane.
template <class T>
EMBER_VEC_INLINE T clamp_both_(T x, T lo, T hi) {
  const T t = x < lo ? lo : x;
  return t > hi ? hi : t;
}

// Integer division by zero never reaches a kernel: check_int_divisor raises first.
// Kernels must not throw (they run inside OpenMP loops), so they just avoid the trap.

template <class T>
EMBER_VEC_INLINE T div_trunc(T a, T b) {
  if constexpr (is_fp<T>) {
    return std::trunc(a / b);
  } else {
    if (b == 0) return T(0);
    if constexpr (std::is_signed_v<T>)
      if (b == T(-1)) return static_cast<T>(T(0) - a);  // avoids INT_MIN / -1 overflow
    return static_cast<T>(a / b);
  }
}
template <class T>
EMBER_VEC_INLINE T div_floor(T a, T b) {
  if constexpr (is_fp<T>) {
    // Python's float floor division: exact via fmod, not floor(a / b).
    if (b == T(0)) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    if (div == T(0)) return std::copysign(T(0), a / b);
    T fl = std::floor(div);
    if (div - fl > T(0.5)) fl += T(1);
    return fl;
  } else {
    if (b == 0) return T(0);
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return static_cast<T>(T(0) - a);
      T q = static_cast<T>(a / b);
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    } else {
      return static_cast<T>(a / b);
    }
  }
}
template <class T>
EMBER_VEC_INLINE T remainder_(T a, T b) {
  if constexpr (is_fp<T>) {
    T m = std::fmod(a, b);
    if (m != T(0) && ((b < T(0)) != (m < T(0)))) m += b;
    return m;
  } else {
    if (b == 0) return T(0);
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return T(0);
      T m = static_cast<T>(a % b);
      if (m != 0 && ((b < 0) != (m < 0))) m = static_cast<T>(m + b);
      return m;
    } else {
      return static_cast<T>(a % b);
    }
  }
}
template <class T>
EMBER_VEC_INLINE T fmod_(T a, T b) {
  if constexpr (is_fp<T>) {
    return std::fmod(a, b);
  } else {
    if (b == 0) return T(0);
    if constexpr (std::is_signed_v<T>)
      if (b == T(-1)) return T(0);
    return static_cast<T>(a % b);
  }
}
template <class T>
EMBER_VEC_INLINE T pow_(T a, T b) {
  if constexpr (is_fp<T>) {
    return std::pow(a, b);  // the op body routes scalar 2 and 0.5 to square / sqrt
  } else {
    // Integer power by squaring; negative exponents follow C semantics.
    if constexpr (std::is_signed_v<T>) {
      if (b < 0) {
        if (a == 1) return 1;
        if (a == -1) return (b % 2 == 0) ? 1 : -1;
        return 0;
      }
    }
    using U = std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>>;
    U base = static_cast<U>(a), r = 1;
    uint64_t e = static_cast<uint64_t>(b);
    while (e) {
      if (e & 1) r = static_cast<U>(r * base);
      base = static_cast<U>(base * base);
      e >>= 1;
    }
    return static_cast<T>(r);
  }
}
template <class T>
EMBER_VEC_INLINE T logaddexp_(T a, T b) {
  if (a != a || b != b) return a + b;
  T m = a > b ? a : b;
  if (std::isinf(m) && a == b) return a;
  return m + std::log1p(std::exp(-std::abs(a - b)));
}
template <class T>
EMBER_VEC_INLINE T logaddexp2_(T a, T b) {
  if (a != a || b != b) return a + b;
  T m = a > b ? a : b;
  if (std::isinf(m) && a == b) return a;
  return m + std::log1p(std::exp2(-std::abs(a - b))) / T(0.6931471805599453);
}
template <class T>
EMBER_VEC_INLINE T xlogy_(T a, T b) {
  if (b != b) return b;
  if (a == T(0)) return T(0);
  return a * std::log(b);
}
template <class T>
EMBER_VEC_INLINE T shl_(T a, T b) {
  constexpr T bits = static_cast<T>(sizeof(T) * 8);
  if constexpr (std::is_signed_v<T>)
    if (b < 0) return 0;
  if (b >= bits) return 0;
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) << b);
}
template <class T>
EMBER_VEC_INLINE T shr_(T a, T b) {
  constexpr T bits = static_cast<T>(sizeof(T) * 8);
  if constexpr (std::is_signed_v<T>) {
    if (b < 0 || b >= bits) return a < 0 ? T(-1) : T(0);
  } else {
    if (b >= bits) return 0;
  }
  return static_cast<T>(a >> b);
}
template <class T>
EMBER_VEC_INLINE T lerp_(T a, T b, T w) {
  // The two-sided form PyTorch uses: exact at w = 0 and w = 1.
  return std::abs(w) < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
}
template <class T>
EMBER_HOST_DEVICE inline T digamma(T x) {
  return static_cast<T>(special::digamma(static_cast<double>(x)));
}
template <class T>
EMBER_HOST_DEVICE inline T erfinv(T x) {  // in double, rounded once to T
  return static_cast<T>(special::erfinv(static_cast<double>(x)));
}
// S: the tensor's dtype (T its op-math type); a half type rounds as aten's kernel does in it.
template <class T, class S = T>
EMBER_HOST_DEVICE inline T polygamma(T x, int64_t n) {
  if constexpr (!std::is_same_v<T, S>) {
    T r;
    if (n >= 2 && n <= 34 && std::isfinite(x) && special::polygamma_half_type<S>(n, x, &r)) return r;
  }
  return static_cast<T>(special::polygamma(n, static_cast<double>(x)));
}

}  // namespace
}  // namespace ember::ops
