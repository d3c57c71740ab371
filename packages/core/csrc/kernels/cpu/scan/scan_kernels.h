// Scan kernels (CPU): the entries of the backend table's ScanKernels.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace ember::scan {

// out = log(cumsum(exp(x))) along n of the contiguous [outer, n, inner] view both have (x
// floating; half types accumulate in float). NaN propagates; -inf adds nothing; +inf stays.
void logcumsumexp(const Tensor& x, const Tensor& out, int64_t outer, int64_t n, int64_t inner);
// indices (int64) and values (x's dtype), both of x's shape: at j along n, the index and value of the
// largest (greater) or smallest element so far; the last of ties, and NaN wins from its first
// appearance on (each later NaN taking over).
void cum_extreme(const Tensor& x, const Tensor& values, const Tensor& indices, int64_t outer, int64_t n, int64_t inner,
                 bool greater);

}  // namespace ember::scan
