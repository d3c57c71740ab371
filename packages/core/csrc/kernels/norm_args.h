// The arguments of the norm kernels (kernels/backend.h, NormKernels): device-independent, so
// the backend table can name them for every device.
#pragma once
#include <cstdint>

namespace ember::norms {

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
  const double *w, *b;
  // aten's transform for an input (or parameter) that is not contiguous: ((x - mean) * rstd) * w
  // + b, exact where x equals the mean; a contiguous one takes x * scale + shift.
  bool centered = false;
  // ... in the parameters' dtype: a half type (not aten's mixed float32 parameters) rounds the
  // statistics and every step to it
  bool half_steps = false;
};

}  // namespace ember::norms
