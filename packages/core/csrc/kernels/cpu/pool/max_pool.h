// Max pooling's general pass: any window (size, stride, dilation, padding, adaptive) given as
// one span per output position and dim. NaN wins a window (PyTorch's `v > max || isnan(v)`).
#pragma once
#include <cstdint>

#include "core/scalar_type.h"
#include "kernels/pool_window.h"

namespace ember::pool {

// x: `planes` contiguous (D, H, W) planes of dtype dt, sizes in[]; y (dtype dt) and ind (flat
// index within the plane) get `planes` contiguous (out[0], out[1], out[2]) planes. spans[d]
// holds out[d] spans. `name` names the op in the unsupported-dtype error.
void max_windows(ScalarType dt, const char* name, const void* x, int64_t planes, const int64_t* in, const int64_t* out,
                 const Span* const* spans, void* y, int64_t* ind);

}  // namespace ember::pool
