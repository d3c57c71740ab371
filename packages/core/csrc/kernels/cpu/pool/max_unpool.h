// Max unpooling's scatter (CPU): the entries of the backend table's PoolKernels::unpool_*.
#pragma once
#include <cstdint>

#include "core/scalar_type.h"

namespace ember::pool {

// out[b][idx[b][i]] = src[b][i] for `planes` planes of m values of dtype dt (floating; `name`
// names the op in the dtype error) into the zeroed (planes, plane_size) out; idx checked.
void unpool_scatter(ScalarType dt, const char* name, const void* src, const int64_t* idx, int64_t planes, int64_t m,
                    void* out, int64_t plane_size);
// The same, summing in the op-math type (max pooling's backward; idx valid by construction).
void unpool_scatter_add(ScalarType dt, const void* src, const int64_t* idx, int64_t planes, int64_t m, void* out,
                        int64_t plane_size);

}  // namespace ember::pool
