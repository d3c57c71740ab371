// The arguments of the sampling kernels (kernels/backend.h, RandomKernels): device-independent,
// so the backend table can name them for every device.
#pragma once
#include <cstdint>

namespace ember {

// A 1-d (rows 1, s0 0) or 2-d probability tensor of a floating dtype, read through its strides.
struct MultinomialProbs {
  const void* data;
  int64_t s0, s1, rows, cats;
};

}  // namespace ember
