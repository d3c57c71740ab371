// 16-bit floating point storage types. Arithmetic happens in float (the
// "opmath" type), as in PyTorch; these only convert, rounding to nearest-even.
#pragma once
#include <cstdint>
#include <cstring>
#if defined(__F16C__) && !defined(__CUDACC__)
#include <immintrin.h>
#endif

#include "core/host_device.h"

namespace ember {

EMBER_HOST_DEVICE inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
EMBER_HOST_DEVICE inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

EMBER_HOST_DEVICE inline float half_to_float(uint16_t h) {
#if defined(__F16C__) && !defined(__CUDACC__)
  // The kernels built for AVX2 have F16C: one instruction, and loops of it vectorise. Same
  // results as below (exact widening; NaN payloads kept).
  return _cvtsh_ss(h);
#endif
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t em = h & 0x7fff;
  uint32_t r;
  if (em >= 0x7c00) {
    r = 0x7f800000u | ((em & 0x3ff) << 13);  // inf / nan
  } else if (em >= 0x400) {
    r = (em << 13) + 0x38000000u;  // normal: rebias exponent by 127-15
  } else {
    r = float_to_bits(static_cast<float>(em) * 5.9604644775390625e-8f);  // subnormal: em * 2^-24
  }
  return bits_to_float(r | sign);
}

EMBER_HOST_DEVICE inline uint16_t float_to_half(float f) {
#if defined(__F16C__) && !defined(__CUDACC__)
  // Round to nearest even, NaN quieted with its sign and top payload bits: as below.
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
#endif
  uint32_t x = float_to_bits(f);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t ax = x & 0x7fffffffu;
  // NaN keeps its sign and top payload bits, quieted, as the F16C/AVX-512 conversions (PyTorch's) do.
  if (ax >= 0x7f800000u)
    return static_cast<uint16_t>(sign | (ax > 0x7f800000u ? 0x7e00 | ((ax >> 13) & 0x3ff) : 0x7c00));
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00);  // rounds to inf
  if (ax < 0x38800000u) {
    // Below the smallest normal half: adding 0.5 puts the half ulp (2^-24) at
    // the float's last mantissa bit, so the FPU does the rounding for us.
    uint32_t r = float_to_bits(bits_to_float(ax) + 0.5f);
    return static_cast<uint16_t>(sign | (r - 0x3f000000u));
  }
  uint32_t odd = (ax >> 13) & 1;
  ax += 0xc8000fffu + odd;  // rebias exponent, round to nearest even
  return static_cast<uint16_t>(sign | (ax >> 13));
}

EMBER_HOST_DEVICE inline float bf16_to_float(uint16_t b) { return bits_to_float(static_cast<uint32_t>(b) << 16); }
EMBER_HOST_DEVICE inline uint16_t float_to_bf16(float f) {
  uint32_t x = float_to_bits(f);
  // NaN keeps its sign and top payload bits, quieted, as AVX-512 BF16's conversion (PyTorch's vector path) does.
  // A select, not an early return: loops of it then vectorise (a branch made bfloat16 relu 100x float's time).
  const uint32_t nan = (x >> 16) | 0x40u;
  const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  return static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

struct Half {
  uint16_t x = 0;
  Half() = default;
  EMBER_HOST_DEVICE Half(float f) : x(float_to_half(f)) {}
  EMBER_HOST_DEVICE operator float() const { return half_to_float(x); }
  EMBER_HOST_DEVICE static Half from_bits(uint16_t b) {
    Half h;
    h.x = b;
    return h;
  }
};

struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  EMBER_HOST_DEVICE BFloat16(float f) : x(float_to_bf16(f)) {}
  EMBER_HOST_DEVICE operator float() const { return bf16_to_float(x); }
  EMBER_HOST_DEVICE static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.x = b;
    return h;
  }
};

}  // namespace ember
