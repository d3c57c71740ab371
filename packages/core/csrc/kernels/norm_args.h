// The arguments of the norm kernels (kernels/backend.h, NormKernels): device-independent, so
// the backend table can name them for every device.
#pragma once
#include <cstdint>

#include "core/half.h"
#include "core/host_device.h"
#include "core/scalar_type.h"

namespace ember::norms {

// A per-channel parameter read where it lives, in its own floating dtype (no cast to double
// first: on a GPU that was a launch per parameter per call); p null reads `fill` (no weight: 1).
struct ChannelView {
  const void* p = nullptr;
  ScalarType dtype = ScalarType::Float64;
  double fill = 0;
  EMBER_VEC_INLINE double operator[](int64_t c) const {
    if (!p) return fill;
    switch (dtype) {
      case ScalarType::Float32:
        return static_cast<const float*>(p)[c];
      case ScalarType::Float16:
        return static_cast<float>(static_cast<const Half*>(p)[c]);
      case ScalarType::BFloat16:
        return static_cast<float>(static_cast<const BFloat16*>(p)[c]);
      default:
        return static_cast<const double*>(p)[c];
    }
  }
};

// An (N, C, *) input as n batches of c channels of s contiguous elements.
struct NCS {
  int64_t n = 1, c = 1, s = 1;
};

// Batch norm's forward over a contiguous input: with batch_stats the batch statistics are
// written to mean / var, else they hold the running ones. w, b: one double per channel.
struct BatchForward {
  NCS d;
  bool batch_stats;
  double eps;
  double *mean, *var;
  ChannelView w, b;
  // aten's transform for an input (or parameter) that is not contiguous: ((x - mean) * rstd) * w
  // + b, exact where x equals the mean; a contiguous one takes x * scale + shift.
  bool centered = false;
  // ... in the parameters' dtype: a half type (not aten's mixed float32 parameters) rounds the
  // statistics and every step to it
  bool half_steps = false;
};

}  // namespace ember::norms
