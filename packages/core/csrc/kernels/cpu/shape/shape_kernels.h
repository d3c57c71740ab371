// The shape kernels (CPU): the entries of the backend table's ShapeKernels (kernels/backend.h,
// which says what each takes) -- the element copies of flip, tril / triu and cat, whose op
// bodies live in ops/shape/.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace ember::shapes {

void strided_gather(const Tensor& out, const char* src, IntArrayRef sizes, IntArrayRef byte_strides);
void triangle(const Tensor& t, int64_t k, bool lower);
void triangle_strided(const Tensor& t, int64_t k, bool lower);
void cat_block(const Tensor& dst, const Tensor& src, int64_t dim, int64_t offset);

}  // namespace ember::shapes
