// Upsampling (nearest, nearest-exact, linear / bilinear / trilinear, bicubic) as the backend
// table's UpsampleKernels take it: device-independent geometry and the kernel entry
// (kernels/cpu/pool/upsample.cpp); the op bodies are ops/nn/nn_upsample.cpp.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/scalar_type.h"

namespace ember::upsample {

enum class Mode { Nearest, NearestExact, Linear, Cubic };
using Arr3 = std::array<int64_t, 3>;

struct Geometry {
  Mode mode;
  int n;
  Arr3 in{1, 1, 1}, out{1, 1, 1};
  bool align_corners = false;
  std::array<std::optional<double>, 3> scales;
};

// aten's pick of its channels-last kernel for bilinear 2-d: a channels-last input with more than
// 3 channels, an output with H + W <= 128, or 3 channels on one thread. Its vector loop covers
// the channels below the last multiple of 8 float / 4 double / 16 half-type lanes (AVX2 widths,
// which its build uses on every x86-64 CPU seen: Cascade Lake, Emerald Rapids, Zen 4).
struct ClForm {
  bool on = false;
  int64_t channels = 1, vec_channels = 0;
};

// The interpolating modes aten takes uint8 in: bilinear and bicubic (2-d) only.
inline bool u8_interp(Mode mode, int n) { return (mode == Mode::Linear && n == 2) || mode == Mode::Cubic; }

// aten's op name of a mode and rank (its error messages' name).
const char* mode_name(Mode m, int n);

// One dim's taps: output position o reads input idx[o * taps + t] with weight w[o * taps + t].
template <class acc_t>
struct Taps {
  int taps = 1;
  std::vector<int64_t> idx;
  std::vector<acc_t> w;
};

// Dim d's taps of g for dtype scalar_t, PyTorch's source-index rules (one unit tap for the dims
// before the last g.n); round_to_scalar stores the weights as scalar_t first (aten's forward
// without its channels-last form). Built on the host for every device (kernels/cpu/pool/upsample.cpp).
template <class scalar_t>
Taps<opmath_t<scalar_t>> dim_taps(const Geometry& g, int d, bool round_to_scalar);

}  // namespace ember::upsample
