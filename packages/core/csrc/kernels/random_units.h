// A generator's raw words as uniform numbers in [0, 1), and the conversions PyTorch's samplers
// write results with: shared by the samplers' op bodies (ops/random) and their kernels
// (kernels/backend.h, RandomKernels).
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/half.h"

namespace ember {

// PyTorch's uniform_real_distribution: the low mantissa-width bits of one
// 32-bit draw (float and narrower) or one 64-bit draw (double), scaled to [0, 1).
inline float unit_float(uint32_t w) { return static_cast<float>(w & 0xffffffu) * (1.0f / 16777216.0f); }
inline double unit_double(uint64_t w) {
  return static_cast<double>(w & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}

// double -> int64 as x86's cvttsd2si does it (out of range and NaN give INT64_MIN),
// without the undefined behaviour of a plain cast.
inline int64_t to_int64_x86(double v) {
  return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? static_cast<int64_t>(v) : INT64_MIN;
}

// static_cast<scalar_t>(double) as PyTorch writes results (floats round through
// float for half/bfloat16; integers truncate).
template <class T>
inline T from_double(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(to_int64_x86(v));
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return static_cast<T>(v);
  } else {
    return T(static_cast<float>(v));
  }
}
template <class T>
inline T from_int64(int64_t v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return static_cast<T>(v);
  } else {
    return T(static_cast<float>(v));
  }
}

// Bits of precision of a dtype: the range in which it holds every integer.
template <class T>
constexpr int mantissa_digits() {
  if constexpr (std::is_same_v<T, Half>) return 11;
  else if constexpr (std::is_same_v<T, BFloat16>) return 8;
  else return std::numeric_limits<T>::digits;
}

}  // namespace ember
