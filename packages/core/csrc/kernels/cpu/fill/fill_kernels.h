// Tensors written from one value or a formula of the index (CPU): the entries of the backend
// table's FillKernels (op bodies: ops/core/copy.cpp's fills, ops/core/factory.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/scalar_type.h"

namespace ember::fill {

// n contiguous elements of itemsize bytes set to the bit pattern at value.
void fill(void* out, int64_t n, size_t itemsize, const void* value);
// out[i] = start + i * step in dt; an integer dt steps from istart by istep in wrapping int64.
void arange(ScalarType dt, void* out, int64_t n, double start, double step, int64_t istart, int64_t istep);
// linspace (logspace: base raised to it) of `steps` > 1 values from start to end in dt, as aten
// steps for that dtype; the step is diff / (steps - 1) (diff: end - start, or an integer
// logspace's wrapping difference).
void linspace(ScalarType dt, void* out, int64_t steps, double start, double end, double diff, double base, bool log);
// Ones on the diagonal of the zeroed, contiguous n x m out.
void eye(ScalarType dt, void* out, int64_t n, int64_t m);

}  // namespace ember::fill
