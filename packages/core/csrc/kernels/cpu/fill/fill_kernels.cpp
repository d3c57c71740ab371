// Fills and ranges (kernels/backend.h, FillKernels): a contiguous fill as a store loop of one bit
// pattern, arange, linspace / logspace in the step type aten uses per dtype, eye's diagonal.
#include "kernels/cpu/fill/fill_kernels.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/half.h"
#include "core/parallel.h"
#include "kernels/element_bytes.h"

namespace ember::fill {

namespace {

// A double written to the dtype; to an integer one as aten's compiled code does it on x86
// (cvttsd2si into 32 bits, or 64 for int64, then the narrow store): out of range and NaN give
// the minimum (0 in 8 and 16 bits), without a plain cast's undefined behaviour.
template <class T>
T range_value(double v) {
  if constexpr (!std::is_integral_v<T>) {
    return static_cast<T>(v);
  } else if constexpr (sizeof(T) == 8) {
    return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? static_cast<T>(v) : INT64_MIN;
  } else {
    const int32_t w = (v > -2147483649.0 && v < 2147483648.0) ? static_cast<int32_t>(v) : INT32_MIN;
    return static_cast<T>(w);
  }
}

}  // namespace

// The generic iterator with a stride-0 source ran at half PyTorch's speed; zeros are a memset.
void fill(void* out, int64_t n, size_t itemsize, const void* value) {
  by_itemsize(itemsize, [&](auto tag) {
    using U = decltype(tag);
    U bitsv;
    std::memcpy(&bitsv, value, sizeof(U));
    U* p = static_cast<U*>(out);
    parallel_for(0, n, kGrainSize * 8, [&](int64_t b, int64_t e) {
      if (bitsv == U(0)) std::memset(p + b, 0, static_cast<size_t>(e - b) * sizeof(U));
      else std::fill(p + b, p + e, bitsv);
    });
  });
}

void arange(ScalarType dt, void* out, int64_t n, double start, double step, int64_t istart, int64_t istep) {
  EMBER_DISPATCH_NO_BOOL(dt, "arange_cpu", [&] {
    scalar_t* p = static_cast<scalar_t*>(out);
    if constexpr (std::is_integral_v<scalar_t>) {
      // Wrapping (unsigned) arithmetic: the values of a narrow dtype wrap as PyTorch's do.
      const uint64_t ia = static_cast<uint64_t>(istart), ic = static_cast<uint64_t>(istep);
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<scalar_t>(static_cast<int64_t>(ia + uint64_t(i) * ic));
    } else {
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<scalar_t>(start + i * step);
    }
  });
}

void linspace(ScalarType dt, void* out, int64_t steps, double start, double end, double diff, double base, bool log) {
  const double s = start, e = end;
  const double step = steps > 1 ? diff / static_cast<double>(steps - 1) : 0.0;
  const int64_t half = steps / 2;
  EMBER_DISPATCH_NO_BOOL(dt, log ? "logspace_cpu" : "linspace_cpu", [&] {
    scalar_t* p = static_cast<scalar_t*>(out);
    // logspace raises `base` (in double) to its position before rounding to the dtype.
    auto put = [&](int64_t i, auto v) {
      p[i] = range_value<scalar_t>(log ? std::pow(base, static_cast<double>(v)) : static_cast<double>(v));
    };
    if constexpr (!std::is_integral_v<scalar_t>) {
      if (log) {
        // aten's logspace kernel: the ends rounded to the dtype and their difference taken in it
        // (a half type rounds it), then a double step and double positions
        const scalar_t a = static_cast<scalar_t>(s), b = static_cast<scalar_t>(e);
        const double sd = static_cast<double>(a), ed = static_cast<double>(b);
        const double st = static_cast<double>(static_cast<scalar_t>(b - a)) / static_cast<double>(steps - 1);
        for (int64_t i = 0; i < steps; ++i)
          put(i, i < half ? sd + st * static_cast<double>(i) : ed - st * static_cast<double>(steps - 1 - i));
        return;
      }
    }
    if constexpr (std::is_same_v<scalar_t, float>) {  // aten's float32 linspace kernel steps in float
      const float sf = static_cast<float>(s), ef = static_cast<float>(e);
      const float stf = (ef - sf) / static_cast<float>(steps - 1);
      for (int64_t i = 0; i < steps; ++i)
        put(i, i < half ? std::fma(stf, static_cast<float>(i), sf)
                        : std::fma(-stf, static_cast<float>(steps - 1 - i), ef));
      return;
    }
    if constexpr (std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>) {
      // linspace's step type is the half type too: each c10 operator rounds to it
      auto h = [](float v) { return static_cast<float>(static_cast<scalar_t>(v)); };
      const float sh = h(static_cast<float>(s)), eh = h(static_cast<float>(e));
      const float st = h(h(eh - sh) / h(static_cast<float>(steps - 1)));
      for (int64_t i = 0; i < steps; ++i) {
        const float k = static_cast<float>(i < half ? i : steps - 1 - i);
        put(i, h(i < half ? sh + h(st * h(k)) : eh - h(st * h(k))));
      }
      return;
    }
    for (int64_t i = 0; i < steps; ++i) {
      // aten's vectorised linspace computes `start + step * i` and `end - step * (steps - 1 - i)` as
      // one fused multiply-add (5 -> -3 in 7 int steps has 0.99999999999999978, so 0, at i = 3); its
      // scalar logspace loop rounds the product first (10^1 there, not 10^0.99999999999999978).
      const double k = static_cast<double>(i < half ? i : steps - 1 - i);
      if (log) put(i, i < half ? s + step * k : e - step * k);
      else put(i, i < half ? std::fma(step, k, s) : std::fma(-step, k, e));
    }
  });
}

void eye(ScalarType dt, void* out, int64_t n, int64_t m) {
  EMBER_DISPATCH_ALL_AND_COMPLEX(dt, "eye", [&] {
    scalar_t* p = static_cast<scalar_t*>(out);
    for (int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = static_cast<scalar_t>(1);
  });
}

}  // namespace ember::fill
