// Average pooling's windows (kernels/backend.h, PoolKernels::avg_*): device-independent, so the
// backend table can name them for every device. Built by ops/nn/nn_pool_avg.cpp.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/pool_window.h"

namespace ember::pool {

using Arr3 = std::array<int64_t, 3>;

// A window along one dim: the clamped range [lo, hi) and the padded extent (for the divisor).
struct Win {
  int64_t lo, hi, padded;
};

struct AvgGeometry {
  Arr3 in{1, 1, 1}, out{1, 1, 1};
  std::array<std::vector<Win>, 3> wins;
  // Divisor rule: override, else the padded window size, else the clamped window size.
  std::optional<int64_t> divisor_override;
  bool count_include_pad = true;
  // The windows cover every input element exactly once (stride == kernel, no padding or
  // leftover): the backward then writes each element once instead of accumulating.
  bool tiles = false;
  // Window rule: windowed (kernel k, stride s, padding pd) or adaptive. The windows are built only
  // once the result is allocated: 2**31 output positions would otherwise take seconds to describe
  // before an allocation that fails.
  bool adaptive = false;
  // Sum in the input's dtype rather than its op-math type (aten's adaptive_avg_pool3d frame).
  bool sum_in_input_type = false;
  Arr3 k{1, 1, 1}, s{1, 1, 1}, pd{0, 0, 0};

  void build_windows() {
    for (int d = 0; d < 3; ++d)
      for (int64_t o = 0; o < out[d]; ++o) {
        if (adaptive) {
          const int64_t lo = adaptive_start(o, in[d], out[d]), hi = adaptive_end(o, in[d], out[d]);
          wins[d].push_back(Win{lo, hi, hi - lo});
        } else {
          const int64_t start = o * s[d] - pd[d], end = std::min(start + k[d], in[d] + pd[d]);
          wins[d].push_back(Win{std::max<int64_t>(start, 0), std::min(end, in[d]), end - start});
        }
      }
  }

  int64_t divisor(const Win& d, const Win& h, const Win& w) const {
    if (divisor_override) return *divisor_override;
    if (count_include_pad) return d.padded * h.padded * w.padded;
    return (d.hi - d.lo) * (h.hi - h.lo) * (w.hi - w.lo);
  }
};

}  // namespace ember::pool
