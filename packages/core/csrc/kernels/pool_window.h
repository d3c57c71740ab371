// One pooling window along one dim, as the pooling kernels take it: device-independent, so the
// backend table (kernels/backend.h) can name it for every device.
#pragma once
#include <cstdint>

namespace ember::pool {

// Input positions start, start + step, ... < end (all in range) of one output position.
struct Span {
  int64_t start, end, step;
};

}  // namespace ember::pool
