// Derivative helpers for the index ops (ops/index.yaml), built from ag:: ops,
// and the autograd-aware advanced indexing used by Tensor.__getitem__ (a hand-written node).
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "../core/scalar.h"
#include "../core/tensor.h"

namespace ember {

Tensor index_select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index);
Tensor gather_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index);
Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, const Tensor& source,
                                 const Scalar& alpha);
Tensor index_fill_value_backward(const Tensor& grad, int64_t dim, const Tensor& index);
Tensor masked_fill_value_backward(const Tensor& grad, const Tensor& mask);
Tensor masked_select_backward(const Tensor& grad, const Tensor& input, const Tensor& mask);
Tensor masked_scatter_source_backward(const Tensor& grad, const Tensor& mask, const Tensor& source);
Tensor take_along_dim_backward(const Tensor& grad, const Tensor& input, const Tensor& indices,
                               std::optional<int64_t> dim);
Tensor put_self_backward(const Tensor& grad, const Tensor& index, const Tensor& source, bool accumulate);
Tensor put_source_backward(const Tensor& grad, const Tensor& index, const Tensor& source);
Tensor take_backward(const Tensor& grad, const Tensor& input, const Tensor& index);

Tensor index_put_self_backward(const Tensor& grad, const TensorList& indices, bool accumulate);
Tensor index_put_values_backward(const Tensor& grad, const TensorList& indices, IntArrayRef values_sizes);

namespace ag {
// self[indices], recording IndexBackward0 (ag::index_put / index_put_ are generated from ops/index.yaml).
Tensor index(const Tensor& self, const std::vector<Tensor>& indices);
}  // namespace ag

// scatter_reduce(input, dim, index, src, reduce, include_self): the input's and src's gradients
// (sum, prod incl. zeros, mean, amax/amin sharing the gradient evenly among ties).
Tensor scatter_reduce_backward_self(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& index,
                                    const Tensor& src, std::string_view reduce, bool include_self,
                                    const Tensor& result);
Tensor scatter_reduce_backward_src(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& index,
                                   const Tensor& src, std::string_view reduce, bool include_self, const Tensor& result);
// scatter(..., reduce=): PyTorch has no derivative; backward raises its error.
Tensor scatter_reduce_not_implemented();

}  // namespace ember
