// arange, linspace / logspace and eye on the GPU: each element from its index by the formula
// and in the step type the CPU kernel uses per dtype (kernels/cpu/fill/fill_kernels.cpp), so
// the values match it bit for bit -- products and sums are rounded separately (__dmul_rn,
// __dadd_rn) where the CPU does not fuse them, and fused (fma) where it does. logspace's pow is
// CUDA's, within an ulp or two of the CPU's.
#include <cstring>
#include <type_traits>

#include "core/half.h"
#include "kernels/cuda/device_of.h"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/cuda/sequence_kernels.h"
#include "kernels/element_bytes.h"

namespace ember::cuda {

namespace {

// A double written to the dtype as the CPU kernel's range_value does (aten's x86 conversion:
// out of range and NaN give the minimum), with no undefined cast.
template <class T>
__device__ __forceinline__ T range_value(double v) {
  if constexpr (!std::is_integral_v<T>) {
    return static_cast<T>(v);
  } else if constexpr (sizeof(T) == 8) {
    return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? static_cast<T>(static_cast<int64_t>(v))
                                                                      : static_cast<T>(INT64_MIN);
  } else {
    const int32_t w = (v > -2147483649.0 && v < 2147483648.0) ? static_cast<int32_t>(v) : INT32_MIN;
    return static_cast<T>(w);
  }
}

template <class T>
__global__ void arange_kernel(T* out, int64_t n, double start, double step, int64_t istart, int64_t istep) {
  const int64_t stride = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if constexpr (std::is_integral_v<T>) {
      // wrapping (unsigned) arithmetic, as the CPU kernel
      out[i] = static_cast<T>(static_cast<uint64_t>(istart) + static_cast<uint64_t>(i) * static_cast<uint64_t>(istep));
    } else {
      out[i] = static_cast<T>(__dadd_rn(start, __dmul_rn(static_cast<double>(i), step)));
    }
  }
}

struct LinspaceArgs {
  int64_t steps, half;
  double start, end, step, base;
  bool log;
};

template <class T>
__device__ __forceinline__ void put(const LinspaceArgs& a, T* p, int64_t i, double v) {
  p[i] = range_value<T>(a.log ? pow(a.base, v) : v);
}

// The CPU kernel's branches per dtype, element i of them.
template <class T>
__global__ void linspace_kernel(T* p, const LinspaceArgs a) {
  const int64_t stride = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.steps; i += stride) {
    const bool low = i < a.half;
    const int64_t k = low ? i : a.steps - 1 - i;
    if constexpr (!std::is_integral_v<T>) {
      if (a.log) {  // ends rounded to the dtype, their difference taken in it, then double steps
        const T lo = static_cast<T>(a.start), hi = static_cast<T>(a.end);
        const double sd = static_cast<double>(lo), ed = static_cast<double>(hi);
        const double st = static_cast<double>(static_cast<T>(hi - lo)) / static_cast<double>(a.steps - 1);
        put(a, p, i, low ? __dadd_rn(sd, __dmul_rn(st, double(i))) : __dsub_rn(ed, __dmul_rn(st, double(k))));
        continue;
      }
    }
    if constexpr (std::is_same_v<T, float>) {  // float32 steps in float, fused
      const float sf = static_cast<float>(a.start), ef = static_cast<float>(a.end);
      const float stf = __fdiv_rn(__fsub_rn(ef, sf), static_cast<float>(a.steps - 1));
      put(a, p, i, low ? fmaf(stf, static_cast<float>(i), sf) : fmaf(-stf, static_cast<float>(k), ef));
    } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      // the step type is the half type: each operation rounds to it
      auto h = [](float v) { return static_cast<float>(static_cast<T>(v)); };
      const float sh = h(static_cast<float>(a.start)), eh = h(static_cast<float>(a.end));
      const float st = h(__fdiv_rn(h(__fsub_rn(eh, sh)), h(static_cast<float>(a.steps - 1))));
      const float kk = static_cast<float>(k);
      put(a, p, i, h(low ? __fadd_rn(sh, h(__fmul_rn(st, h(kk)))) : __fsub_rn(eh, h(__fmul_rn(st, h(kk))))));
    } else {
      const double kd = static_cast<double>(k);
      if (a.log)
        put(a, p, i, low ? __dadd_rn(a.start, __dmul_rn(a.step, kd)) : __dsub_rn(a.end, __dmul_rn(a.step, kd)));
      else put(a, p, i, low ? fma(a.step, kd, a.start) : fma(-a.step, kd, a.end));
    }
  }
}

// W: the unsigned word of the element's size; `one` the dtype's 1 as its bits.
template <class W>
__global__ void eye_kernel(W* out, int64_t diag, int64_t m, W one) {
  const int64_t stride = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < diag; i += stride) out[i * m + i] = one;
}

}  // namespace

void arange(ScalarType dt, void* out, int64_t n, double start, double step, int64_t istart, int64_t istep) {
  if (n <= 0) return;
  const LaunchDevice on(device_of(out, "arange"));
  EMBER_DISPATCH_NO_BOOL(dt, "arange_cuda", [&] {
    arange_kernel<scalar_t>
        <<<grid_for(n), 256, 0, current_stream(-1)>>>(static_cast<scalar_t*>(out), n, start, step, istart, istep);
  });
  check_launch("arange");
}

void linspace(ScalarType dt, void* out, int64_t steps, double start, double end, double diff, double base, bool log) {
  if (steps <= 0) return;
  const LaunchDevice on(device_of(out, log ? "logspace" : "linspace"));
  const LinspaceArgs a{steps, steps / 2, start, end, steps > 1 ? diff / static_cast<double>(steps - 1) : 0.0,
                       base,  log};
  EMBER_DISPATCH_NO_BOOL(dt, log ? "logspace_cuda" : "linspace_cuda", [&] {
    linspace_kernel<scalar_t><<<grid_for(steps), 256, 0, current_stream(-1)>>>(static_cast<scalar_t*>(out), a);
  });
  check_launch("linspace");
}

void eye(ScalarType dt, void* out, int64_t n, int64_t m) {
  const int64_t diag = n < m ? n : m;
  if (diag <= 0) return;
  const LaunchDevice on(device_of(out, "eye"));
  const size_t isz = element_size(dt);
  alignas(16) unsigned char one[16] = {};
  EMBER_DISPATCH_ALL_AND_COMPLEX(dt, "eye", [&] {
    const scalar_t v = static_cast<scalar_t>(1);
    std::memcpy(one, &v, sizeof v);
  });
  by_itemsize(isz, [&](auto w) {
    using W = decltype(w);
    std::memcpy(&w, one, sizeof(W));
    eye_kernel<W><<<grid_for(diag), 256, 0, current_stream(-1)>>>(static_cast<W*>(out), diag, m, w);
  });
  check_launch("eye");
}

}  // namespace ember::cuda
