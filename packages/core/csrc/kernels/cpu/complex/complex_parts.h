// Complex tensors built from, or reduced to, real parts (CPU): the entries of the backend
// table's ComplexKernels::from_parts / conj / angle (op bodies: ops/core/complex_views.cpp).
#pragma once
#include <cstdint>

#include "core/scalar_type.h"

namespace ember {

// out[i] = a[i] + i b[i] (polar: a[i] (cos b[i] + i sin b[i])), n elements of the complex dtype ct
// from two real arrays of its element type.
void complex_from_parts(ScalarType ct, const void* a, const void* b, void* out, int64_t n, bool polar);
// out[i] = conj(in[i]), n elements of the complex dtype ct (out may be in).
void complex_conj(ScalarType ct, const void* in, void* out, int64_t n);
// out[i] = angle(in[i]): arg(z) into the real type of a complex dt; for a floating dt pi below
// zero, NaN for NaN, else 0, in dt.
void complex_angle(ScalarType dt, const void* in, void* out, int64_t n);

}  // namespace ember
