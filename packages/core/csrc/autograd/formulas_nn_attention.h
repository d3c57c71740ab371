// Derivative helper of the fused attention op (ops/nn_attention.yaml).
#pragma once
#include <array>
#include <optional>

#include "../core/tensor.h"
#include "node.h"

namespace ember {

// Gradient `which` (0 query, 1 key, 2 value) of _scaled_dot_product_flash_attention_for_cpu.
// The first call runs the one backward pass for all the gradients in `need` and stores them in
// the node's outputs `out`; later calls for the other inputs return what it stored.
Tensor sdpa_flash_grad(int which, std::array<bool, 3> need, TensorList& out, const Tensor& grad, const Tensor& query,
                       const Tensor& key, const Tensor& value, const Tensor& output, const Tensor& logsumexp,
                       bool is_causal, const Tensor& attn_mask, std::optional<double> scale);

}  // namespace ember
