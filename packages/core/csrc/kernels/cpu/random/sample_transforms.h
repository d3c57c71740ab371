// The samplers' vectorised transforms on the CPU (kernels/backend.h, RandomKernels).
#pragma once
#include <cstdint>

namespace ember::sampling {

// out[i] = unit(w[i]) * (to - from) + from, fused; a value that rounds up to `to` becomes `from`.
void uniform_f32(const uint32_t* w, float* out, int64_t n, float from, float to);
void uniform_f64(const uint64_t* w, double* out, int64_t n, double from, double to);
// Box-Muller in place over blocks of 16 uniforms (u1 = 1 - d[j], u2 = d[j + 8]), PyTorch's
// normal_fill_16: one block of doubles (libm, bit-exact) or nblocks of floats (vectorised).
void box_muller_f64(double* d, double mean, double std);
void box_muller_f32(float* d, int64_t nblocks, float mean, float std);

}  // namespace ember::sampling
