// Scans on the GPU: a thread walks one line in order, accumulating as the CPU kernels do
// (kernels/cpu/reduce/arg_reduce_scan_kernels.cpp, kernels/cpu/scan/scan_kernels.cpp), so
// the sums come out in the same order and type: float32 in double, half types in float,
// integers wrapping in their own width, complex in complex128. Long cumsum / cumprod rows (few of
// them) take a block each instead, scanned 1024 elements at a time (per-thread runs, then the
// block's prefix): the same accumulator types, the association the device's (a float64 row's last
// bits may differ from the CPU's, as PyTorch's CUDA scans do; integers and float32 agree). cumsum / cumprod scan the
// last dim of [outer, n]; logcumsumexp and cummax / cummin the middle dim of [outer, n, inner], where neighbouring
// threads take neighbouring lines (neighbouring addresses).
#include <cstdint>
#include <type_traits>

#include "core/half.h"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/cuda/scan_kernels.h"

namespace ember::cuda {

namespace {

// The accumulator of a real cumsum / cumprod: aten's CPU acc_type (float32 in double, half types
// in float); integers as 64-bit unsigned words, whose low bits wrap as the dtype's own arithmetic
// does (no signed overflow).
template <class T>
using scan_acc_t = std::conditional_t<std::is_integral_v<T>, uint64_t,
                                      std::conditional_t<std::is_same_v<T, float>, double, opmath_t<T>>>;

template <class T, class M>
__device__ __forceinline__ M scan_value(T x) {
  if constexpr (std::is_integral_v<T>) return static_cast<M>(static_cast<int64_t>(x));
  else return static_cast<M>(x);
}

template <class T>
__global__ void cumulative_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t outer, int64_t n, bool is_prod) {
  using M = scan_acc_t<T>;
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < outer; r += step) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    M acc = is_prod ? M(1) : M(0);
    for (int64_t k = 0; k < n; ++k) {
      const M v = scan_value<T, M>(xr[k]);
      acc = is_prod ? acc * v : acc + v;
      yr[k] = static_cast<T>(acc);
    }
  }
}

constexpr int kScanBlock = 256, kScanItems = 4;  // a tile: 1024 elements of a row

// A block per row: each tile's elements as kScanItems consecutive per thread (a run scanned in
// order), the runs' totals scanned across the block in shared memory, the rows' carry added.
template <class T>
__global__ void cumulative_rows_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t outer, int64_t n,
                                       bool is_prod) {
  using M = scan_acc_t<T>;
  __shared__ M totals[kScanBlock];
  const M unit = is_prod ? M(1) : M(0);
  for (int64_t r = blockIdx.x; r < outer; r += gridDim.x) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    M carry = unit;
    for (int64_t tile = 0; tile < n; tile += int64_t(kScanBlock) * kScanItems) {
      const int64_t first = tile + int64_t(threadIdx.x) * kScanItems;
      M run[kScanItems];
      M acc = unit;
      for (int j = 0; j < kScanItems; ++j) {
        if (first + j < n) {
          const M v = scan_value<T, M>(xr[first + j]);
          acc = is_prod ? acc * v : acc + v;
        }
        run[j] = acc;
      }
      totals[threadIdx.x] = acc;
      __syncthreads();
      for (int off = 1; off < kScanBlock; off <<= 1) {  // inclusive scan of the runs' totals
        const M other = threadIdx.x >= off ? totals[threadIdx.x - off] : unit;
        __syncthreads();
        if (threadIdx.x >= off)
          totals[threadIdx.x] = is_prod ? other * totals[threadIdx.x] : other + totals[threadIdx.x];
        __syncthreads();
      }
      const M before = threadIdx.x > 0 ? totals[threadIdx.x - 1] : unit;
      const M prefix = is_prod ? carry * before : carry + before;
      for (int j = 0; j < kScanItems; ++j)
        if (first + j < n) yr[first + j] = static_cast<T>(is_prod ? prefix * run[j] : prefix + run[j]);
      carry = is_prod ? carry * totals[kScanBlock - 1] : carry + totals[kScanBlock - 1];
      __syncthreads();  // totals is rewritten by the next tile
    }
  }
}

// complex64 / complex128 as (re, im) pairs of R, carried in double, products by the textbook
// formula (the CPU's complex_scan).
template <class R>
__global__ void complex_cumulative_kernel(const R* x, R* y, int64_t outer, int64_t n, bool is_prod) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < outer; r += step) {
    const R* xr = x + 2 * r * n;
    R* yr = y + 2 * r * n;
    double re = is_prod ? 1.0 : 0.0, im = 0.0;
    for (int64_t k = 0; k < n; ++k) {
      const double vr = xr[2 * k], vi = xr[2 * k + 1];
      if (is_prod) {
        const double nr = __dsub_rn(__dmul_rn(re, vr), __dmul_rn(im, vi));
        im = __dadd_rn(__dmul_rn(re, vi), __dmul_rn(im, vr));
        re = nr;
      } else {
        re += vr;
        im += vi;
      }
      yr[2 * k] = static_cast<R>(re);
      yr[2 * k + 1] = static_cast<R>(im);
    }
  }
}

// log(exp(a) + exp(b)) as the CPU's log_add_exp: NaN propagates, equal infinities give themselves.
template <class A>
__device__ __forceinline__ A log_add_exp(A a, A b) {
  if (a != a || b != b) return a + b;
  const A lo = a < b ? a : b, hi = a < b ? b : a;
  if (lo == hi && !isfinite(lo)) return a;
  return hi + log1p(exp(lo - hi));
}

template <class T>
__global__ void logcumsumexp_kernel(const T* __restrict__ x, T* __restrict__ out, int64_t outer, int64_t n,
                                    int64_t inner) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t lines = outer * inner, step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t l = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; l < lines; l += step) {
    const int64_t base = (l / inner) * n * inner + l % inner;
    A acc = static_cast<A>(x[base]);
    out[base] = x[base];
    for (int64_t j = 1; j < n; ++j) {
      acc = log_add_exp(acc, static_cast<A>(x[base + j * inner]));
      out[base + j * inner] = static_cast<T>(acc);
    }
  }
}

template <class T>
__device__ __forceinline__ bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  return false;
}

template <class T>
__global__ void extreme_kernel(const T* __restrict__ x, T* __restrict__ vals, int64_t* __restrict__ out, int64_t outer,
                               int64_t n, int64_t inner, bool greater) {
  using C = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;
  const int64_t lines = outer * inner, step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t l = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; l < lines; l += step) {
    const int64_t base = (l / inner) * n * inner + l % inner;
    C best = static_cast<C>(x[base]);
    T raw = x[base];
    int64_t idx = 0;
    for (int64_t j = 0; j < n; ++j) {
      const T r = x[base + j * inner];
      const C v = static_cast<C>(r);
      // later wins ties; a NaN wins, and once the best is NaN only a later NaN replaces it
      if ((greater ? v >= best : v <= best) || is_nan(v)) best = v, raw = r, idx = j;
      out[base + j * inner] = idx;
      vals[base + j * inner] = raw;
    }
  }
}

}  // namespace

void cumulative(const Tensor& in, const Tensor& out, int64_t, bool is_prod) {
  const int64_t n = in.dim() == 0 ? 1 : in.sizes()[in.dim() - 1];
  const int64_t outer = n == 0 ? 0 : in.numel() / n;
  if (outer == 0) return;
  const LaunchDevice on(in.device().index);
  const unsigned blocks = grid_for(outer);
  if (in.dtype() == ScalarType::ComplexFloat) {
    complex_cumulative_kernel<float><<<blocks, 256, 0, current_stream(-1)>>>(
        reinterpret_cast<const float*>(in.raw()), reinterpret_cast<float*>(out.raw()), outer, n, is_prod);
  } else if (in.dtype() == ScalarType::ComplexDouble) {
    complex_cumulative_kernel<double><<<blocks, 256, 0, current_stream(-1)>>>(
        reinterpret_cast<const double*>(in.raw()), reinterpret_cast<double*>(out.raw()), outer, n, is_prod);
  } else {
    // long rows, too few to fill the GPU a thread each: a block per row
    const bool by_block = n >= 512 && outer < 16384;
    EMBER_DISPATCH_NO_BOOL(in.dtype(), is_prod ? "cumprod_cuda" : "cumsum_cuda", [&] {
      if (by_block)
        cumulative_rows_kernel<scalar_t><<<capped_blocks(outer), kScanBlock, 0, current_stream(-1)>>>(
            in.data<scalar_t>(), out.data<scalar_t>(), outer, n, is_prod);
      else
        cumulative_kernel<scalar_t>
            <<<blocks, 256, 0, current_stream(-1)>>>(in.data<scalar_t>(), out.data<scalar_t>(), outer, n, is_prod);
    });
  }
  check_launch("cumsum/cumprod");
}

void logcumsumexp(const Tensor& x, const Tensor& out, int64_t outer, int64_t n, int64_t inner) {
  if (outer * n * inner == 0) return;
  const LaunchDevice on(x.device().index);
  EMBER_DISPATCH_FLOAT(x.dtype(), "logcumsumexp_cuda", [&] {
    logcumsumexp_kernel<scalar_t><<<grid_for(outer * inner), 256, 0, current_stream(-1)>>>(
        x.data<scalar_t>(), out.data<scalar_t>(), outer, n, inner);
  });
  check_launch("logcumsumexp");
}

void cum_extreme(const Tensor& x, const Tensor& values, const Tensor& indices, int64_t outer, int64_t n, int64_t inner,
                 bool greater) {
  if (outer * n * inner == 0) return;
  const LaunchDevice on(x.device().index);
  EMBER_DISPATCH_ALL(x.dtype(), greater ? "cummax_cuda" : "cummin_cuda", [&] {
    extreme_kernel<scalar_t><<<grid_for(outer * inner), 256, 0, current_stream(-1)>>>(
        x.data<scalar_t>(), values.data<scalar_t>(), indices.data<int64_t>(), outer, n, inner, greater);
  });
  check_launch("cummax/cummin");
}

}  // namespace ember::cuda
