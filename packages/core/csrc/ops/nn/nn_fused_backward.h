// Fused CPU kernels behind ops/nn_norm.yaml that the derivative helpers also call
// (csrc/autograd/formulas_nn_norm.cpp): the backward passes of softmax and the norms.
#pragma once
#include <array>
#include <cstdint>

#include "core/tensor.h"

namespace ember::nn_kernels {

// d(input) of softmax (log = false) or log_softmax (log = true) from the output `y`.
Tensor softmax_backward(const Tensor& grad, const Tensor& y, int64_t dim, bool log);

// Gradients {input, weight, bias} of layer norm over `n` trailing elements per row
// (mean / rstd recomputed from x). Entries below `first` are left undefined.
std::array<Tensor, 3> layer_norm_backward(const Tensor& grad, const Tensor& x, int64_t n, const Tensor& weight,
                                          double eps, int first);

// Batch norm over (N, C, *): training uses the batch statistics of x, eval the running ones.
std::array<Tensor, 3> batch_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& weight,
                                          const Tensor& running_mean, const Tensor& running_var, bool training,
                                          double eps, int first);

// Group norm over (N, C, *) with `groups` groups of channels.
std::array<Tensor, 3> group_norm_backward(const Tensor& grad, const Tensor& x, int64_t groups, const Tensor& weight,
                                          double eps, int first);

// Sum of grad rows into a (num_weights, dim) table at `indices` (padding_idx rows get none).
Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx,
                          bool scale_grad_by_freq);

}  // namespace ember::nn_kernels
