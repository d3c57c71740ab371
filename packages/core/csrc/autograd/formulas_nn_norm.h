// Derivative helpers for ops/nn_norm.yaml (softmax, norms, embedding, dropout). Without a
// graph to build they call the fused backward kernels; under create_graph they compose the
// same formulas from ag:: ops, so double backward works.
#pragma once
#include <cstdint>
#include <optional>

#include "../core/tensor.h"

namespace ember {

Tensor nn_softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim, ScalarType input_dtype, bool log);
// which: 0 input, 1 weight, 2 bias.
Tensor nn_layer_norm_backward(const Tensor& grad, const Tensor& input, IntArrayRef normalized_shape,
                              const Tensor& weight, double eps, int which);
Tensor nn_batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight, const Tensor& running_mean,
                              const Tensor& running_var, bool training, double eps, int which);
Tensor nn_group_norm_backward(const Tensor& grad, const Tensor& input, int64_t groups, const Tensor& weight, double eps,
                              int which);
Tensor nn_embedding_backward(const Tensor& grad, const Tensor& indices, IntArrayRef weight_sizes, int64_t padding_idx,
                             bool scale_grad_by_freq);
Tensor nn_dropout_backward(const Tensor& grad, const Tensor& mask, double p, std::optional<bool> train);

}  // namespace ember
