// Helpers shared by the shape op files (shape_*.cpp, sort.cpp); not part of the op API.
#pragma once
#include <utility>
#include <vector>

#include "core/profiler_op.h"
#include "core/tensor.h"

namespace ember {

// A view of `t` restricted to [start, start + length) along dim (no checks).
inline Tensor slice_view(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  DimVector sizes = to_vec(t.sizes());
  sizes[dim] = length;
  return make_view(t, sizes, t.strides(), t.offset() + start * t.stride(dim));
}

// aten makes its views through as_strided: make() (the view's real construction) runs inside that
// op's event, nested in the caller's as in PyTorch's trace. One branch while no profiler runs.
template <class F>
Tensor via_as_strided(const Tensor& t, F&& make) {
  return profiler::nested_op("aten::as_strided", {&t, nullptr, nullptr, nullptr}, std::forward<F>(make));
}

// aten::slice of `t` along dim: [start, start + length * step) (no checks), its event and its
// as_strided's nested in the caller's.
inline Tensor slice_op(const Tensor& t, int64_t dim, int64_t start, int64_t length, int64_t step = 1) {
  return profiler::nested_op("aten::slice", {&t, nullptr, nullptr, nullptr, nullptr}, [&] {
    return via_as_strided(t, [&] {
      DimVector sizes = to_vec(t.sizes()), strides = to_vec(t.strides());
      sizes[dim] = length;
      strides[dim] *= step;
      return make_view(t, sizes, strides, t.offset() + start * t.stride(dim));
    });
  });
}

// repeat_interleave's gather index on a device: for each of `total` output positions along the
// dim, the input slice it repeats -- where the position falls among the running sums of `repeats`
// (int64, one per slice, on the device). Its forward and backward on a device go through it.
Tensor repeat_interleave_index(const Tensor& repeats, int64_t total);

// The split points of the op family (split / chunk / tensor_split) as piece lengths.
std::vector<int64_t> split_pieces(int64_t dim_size, int64_t split_size);
std::vector<int64_t> chunk_pieces(int64_t dim_size, int64_t chunks);
std::vector<int64_t> tensor_split_pieces(int64_t dim_size, std::optional<int64_t> sections, IntArrayRef indices);
// Slices of `t` along dim with the given lengths (views; pieces may overlap for tensor_split).
TensorList split_views(const Tensor& t, int64_t dim, const std::vector<int64_t>& starts,
                       const std::vector<int64_t>& lengths);

}  // namespace ember
