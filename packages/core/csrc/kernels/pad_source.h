// Reflection / replication padding's index rule, for the CPU kernel and the GPU's (host and
// device): the input coordinate output coordinate j reads along a dim of n inputs padded by
// `before` ahead (reflection mirrors once: aten's checks keep the pads below n).
#pragma once
#include <cstdint>

#include "core/host_device.h"

namespace ember::shapes {

EMBER_VEC_INLINE int64_t pad_source(int64_t j, int64_t n, int64_t before, bool reflect) {
  const int64_t i = j - before;
  if (reflect) return i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i);
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

}  // namespace ember::shapes
