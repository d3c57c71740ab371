// Device helpers both fused-attention kernels share (attention_kernels.cu, the simple per-row one,
// and attention_tiled.cu): the CPU kernel's score semantics (kernels/cpu/attention).
#pragma once
#include <cuda_runtime.h>

#include <cmath>
#include <limits>

#include "core/scalar_type.h"
#include "kernels/attention_args.h"

namespace ember::cuda::attention_device {

using attention::Dims;
using attention::MaskView;
using attention::rounded;

constexpr int64_t kCpuBlock = 64;  // the CPU kernel's query rows per block (its causal key limit)

__device__ inline float dev_exp(float x) { return ::expf(x); }
__device__ inline double dev_exp(double x) { return ::exp(x); }
__device__ inline float dev_log(float x) { return ::logf(x); }
__device__ inline double dev_log(double x) { return ::log(x); }

// The additive mask's element for query row i and key j of (batch, head) bh.
template <class T>
__device__ T mask_at(const MaskView& m, const Dims& d, int64_t bh, int64_t i, int64_t j) {
  const int64_t b = bh / d.H, h = bh % d.H;
  return static_cast<const T*>(m.p)[b * m.sb + h * m.sh + i * m.sl + j * m.ss];
}

// A score from its dot product Q_i . K_j: -inf above the diagonal when causal (no mask added).
template <class T>
__device__ T score_of(T dot, T scale, const Dims& d, bool is_causal, const MaskView& m, int64_t bh, int64_t i,
                      int64_t j) {
  if (is_causal && j > i) return -std::numeric_limits<T>::infinity();
  T s = scale * dot;
  if (m.p) s += mask_at<T>(m, d, bh, i, j);
  return s;
}

// The keys the CPU kernel's backward visits for query row i: all, or (causal) those before the
// end of its block of 64 rows (the last block ends at L).
__device__ inline int64_t key_limit(const Dims& d, int64_t i, bool is_causal) {
  if (!is_causal) return d.S;
  int64_t end = (i / kCpuBlock + 1) * kCpuBlock;
  end = end < d.L ? end : d.L;
  return end < d.S ? end : d.S;
}

}  // namespace ember::cuda::attention_device
