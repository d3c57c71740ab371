// complex32 (PyTorch's ComplexHalf, c10::complex<c10::Half>): two float16 parts, a storage type
// only. Arithmetic happens in std::complex<float> (the "opmath" type) and rounds each part once.
#pragma once
#include <complex>

#include "core/half.h"

namespace ember {

struct ComplexHalf {
  using value_type = Half;
  Half re, im;
  ComplexHalf() = default;
  EMBER_HOST_DEVICE ComplexHalf(Half r, Half i) : re(r), im(i) {}
  EMBER_HOST_DEVICE ComplexHalf(float r, float i) : re(r), im(i) {}
  ComplexHalf(std::complex<float> z) : re(z.real()), im(z.imag()) {}  // NOLINT: implicit, as c10's
  operator std::complex<float>() const { return {float(re), float(im)}; }
  EMBER_HOST_DEVICE float real() const { return float(re); }
  EMBER_HOST_DEVICE float imag() const { return float(im); }
};
static_assert(sizeof(ComplexHalf) == 4, "complex32 is two float16 parts");

}  // namespace ember
