// logcumsumexp's forward: log(cumsum(exp(x))) along one dim, one pass of logaddexp per element.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace ember {

// Same shape and dtype as x (a real floating dtype; half types accumulate in float); dim already
// wrapped. NaN propagates; -inf adds nothing; +inf stays.
Tensor logcumsumexp_forward(const Tensor& x, int64_t dim);

}  // namespace ember
