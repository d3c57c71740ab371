// Average pooling kernels (CPU): the entries of the backend table's PoolKernels::avg_*.
#pragma once
#include <cstdint>

#include "core/scalar_type.h"
#include "kernels/avg_pool_geometry.h"

namespace ember::pool {

// y (`planes` contiguous g.out planes) = the window averages of x (`planes` contiguous g.in
// planes), both of dtype dt; g's windows built. `name` names the op in the dtype error.
void avg_forward(const AvgGeometry& g, ScalarType dt, const char* name, int64_t planes, const void* x, void* y);
// x (the zeroed grad_input, g.in planes) += y (grad_output, g.out planes) / divisor per window.
void avg_backward(const AvgGeometry& g, ScalarType dt, const char* name, int64_t planes, void* x, const void* y);

}  // namespace ember::pool
