// Helpers shared by the shape op files (shape_*.cpp, sort.cpp); not part of the op API.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace ember {

// A view of `t` restricted to [start, start + length) along dim (no checks).
inline Tensor slice_view(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  DimVector sizes = to_vec(t.sizes());
  sizes[dim] = length;
  return make_view(t, sizes, t.strides(), t.offset() + start * t.stride(dim));
}

// The split points of the op family (split / chunk / tensor_split) as piece lengths.
std::vector<int64_t> split_pieces(int64_t dim_size, int64_t split_size);
std::vector<int64_t> chunk_pieces(int64_t dim_size, int64_t chunks);
std::vector<int64_t> tensor_split_pieces(int64_t dim_size, std::optional<int64_t> sections, IntArrayRef indices);
// Slices of `t` along dim with the given lengths (views; pieces may overlap for tensor_split).
TensorList split_views(const Tensor& t, int64_t dim, const std::vector<int64_t>& starts,
                       const std::vector<int64_t>& lengths);

}  // namespace ember
