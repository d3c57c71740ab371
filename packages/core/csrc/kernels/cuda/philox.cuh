// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011), the
// counter-based generator behind PyTorch's CUDA generator: four 32-bit words from a 64-bit key
// (the seed) and a 128-bit counter. The CUDA samplers (random_kernels.cu) give element i of a
// draw the counter (i, offset), so its words depend on the seed, the generator's offset and i
// only -- never on the launch shape. Host and device code compute the same words.
#pragma once
#include <cstdint>

#include "core/host_device.h"

namespace ember::cuda {

struct PhiloxWords {
  uint32_t w[4];
};

EMBER_HOST_DEVICE inline uint32_t mul_hi32(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

EMBER_HOST_DEVICE inline PhiloxWords philox(uint64_t seed, uint64_t index, uint64_t offset) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // round multipliers
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // key schedule (Weyl) increments
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  uint32_t c0 = static_cast<uint32_t>(index), c1 = static_cast<uint32_t>(index >> 32);
  uint32_t c2 = static_cast<uint32_t>(offset), c3 = static_cast<uint32_t>(offset >> 32);
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    const uint32_t hi0 = mul_hi32(kM0, c0), lo0 = kM0 * c0;
    const uint32_t hi1 = mul_hi32(kM1, c2), lo1 = kM1 * c2;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  return {{c0, c1, c2, c3}};
}

// The words as uniforms in [0, 1): the low 24 bits of one word (float precision) or the low 53
// of two (double), as PyTorch's uniform_real_distribution scales them.
EMBER_HOST_DEVICE inline float unit_f32(uint32_t w) { return static_cast<float>(w & 0xffffffu) * (1.0f / 16777216.0f); }
EMBER_HOST_DEVICE inline uint64_t word64(uint32_t hi, uint32_t lo) { return (static_cast<uint64_t>(hi) << 32) | lo; }
EMBER_HOST_DEVICE inline double unit_f64(uint64_t w) {
  return static_cast<double>(w & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}

}  // namespace ember::cuda
