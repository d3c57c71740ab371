// arg(z) over contiguous complex runs: an AVX2 form of atan2(im, re) (std::arg is a scalar libm
// call, about 5x slower than PyTorch's Sleef loop), the scalar std::arg elsewhere.
#pragma once
#include <cstdint>

namespace ember {

// o[k] = atan2(a[2k + 1], a[2k]) for the n complex values at a (R = float or double), with
// atan2's signed zeros, infinities and NaNs; within an ulp or two of the correctly rounded value.
template <class R>
void complex_angle_run(const R* a, R* o, int64_t n);

}  // namespace ember
