// Advanced indexing (integer / bool tensors per dim), the engine behind
// Tensor.__getitem__ / __setitem__ and index_put_. `indices[d]` indexes dim d
// of self; an undefined tensor keeps that dim whole (like `:`).
#pragma once
#include <optional>
#include <tuple>
#include <vector>

#include "core/tensor.h"

namespace ember {

using IndexList = std::vector<Tensor>;

// Bool/uint8 masks replaced by their nonzero() columns; checks dtypes and shapes.
IndexList expand_index_masks(const Tensor& self, const IndexList& indices);

// self[indices] (PyTorch's placement rule for the result dims).
Tensor index(const Tensor& self, const IndexList& indices);
// self[indices] = values (or += with accumulate): index_put / index_put_, declared in the
// generated ops.h (ops/index.yaml).

// unique / unique_consecutive (dim: over slices): (values, inverse, counts).
std::tuple<Tensor, Tensor, Tensor> unique_impl(const Tensor& input, std::optional<int64_t> dim, bool consecutive);

}  // namespace ember
