// Derivative helpers for the shape and sorting ops (ops/shape.yaml), built from ag:: ops.
#pragma once
#include <optional>
#include <vector>

#include "../core/tensor.h"

namespace ember {

// Differentiable gather / scatter-add along `dim` (each other's derivative): the backward
// of sort, topk, kthvalue, median, mode, repeat_interleave and as_strided.
// take_along: out[..i..] = x[..idx[..i..]..] (idx has x's shape except along dim).
Tensor take_along(const Tensor& x, int64_t dim, const Tensor& idx);
// put_along: zeros(sizes), then out[..idx[..i..]..] += g[..i..].
Tensor put_along(const Tensor& g, int64_t dim, const Tensor& idx, IntArrayRef sizes);

// Tensor[] inputs: one gradient per list element.
TensorList cat_backward(const Tensor& grad, const std::vector<DimVector>& sizes, const std::vector<ScalarType>& dtypes,
                        int64_t dim);
TensorList stack_backward(const Tensor& grad, const std::vector<ScalarType>& dtypes, int64_t dim);
// hstack (0) / vstack (1) / dstack (2).
TensorList hvdstack_backward(const Tensor& grad, const std::vector<DimVector>& sizes,
                             const std::vector<ScalarType>& dtypes, int kind);
// Tensor[] returns: `grads` has one entry per output, undefined ones become zeros.
Tensor split_backward(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype, int64_t dim,
                      const std::vector<int64_t>& pieces);
Tensor split_size_backward(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype, int64_t split,
                           int64_t dim);
Tensor chunk_backward(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype, int64_t chunks, int64_t dim);
Tensor tensor_split_backward(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype,
                             std::optional<int64_t> sections, IntArrayRef indices, int64_t dim);
Tensor unbind_backward(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype, int64_t dim);
TensorList atleast_list_backward(const TensorList& grads, const std::vector<DimVector>& sizes,
                                 const std::vector<ScalarType>& dtypes);

// Views and reorderings.
Tensor narrow_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t start, int64_t length);
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);
Tensor unfold_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t size, int64_t step);
Tensor as_strided_backward(const Tensor& grad, const Tensor& input, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> offset);
Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2);
Tensor diag_backward(const Tensor& grad, IntArrayRef sizes, int64_t diagonal);
Tensor movedim_backward(const Tensor& grad, IntArrayRef source, IntArrayRef destination);
Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims);
Tensor repeat_backward(const Tensor& grad, IntArrayRef sizes, IntArrayRef repeats);
Tensor repeat_interleave_backward(const Tensor& grad, IntArrayRef sizes, const Tensor& repeats,
                                  std::optional<int64_t> dim);
Tensor flip_lr_ud_backward(const Tensor& grad, int64_t dim);

// Sorting: values come from `indices` along dim.
Tensor sort_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& indices, bool keepdim);

}  // namespace ember

namespace ember {
// tile's dims as repeat's repeats (leading ones added for the input's extra dims).
DimVector tile_repeats(IntArrayRef sizes, IntArrayRef dims);
}  // namespace ember
