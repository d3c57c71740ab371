// Pooling windows along one dim, as the pooling kernels take them: device-independent, so the
// backend table (kernels/backend.h) can name them for every device.
#pragma once
#include <cstdint>

namespace ember::pool {

// Input positions start, start + step, ... < end (all in range) of one output position.
struct Span {
  int64_t start, end, step;
};

// Adaptive windows: start floor(o*in/out), end ceil((o+1)*in/out), in 128 bits (o * in
// overflows int64 for large sizes; the quotient never does).
inline int64_t adaptive_start(int64_t o, int64_t in, int64_t out) {
  return static_cast<int64_t>((static_cast<__int128>(o) * in) / out);
}
inline int64_t adaptive_end(int64_t o, int64_t in, int64_t out) {
  return static_cast<int64_t>(((static_cast<__int128>(o) + 1) * in + out - 1) / out);
}

}  // namespace ember::pool
