#include "formulas_nn_attention.h"

#include "ops.h"

namespace ember {

Tensor sdpa_flash_grad(int which, std::array<bool, 3> need, TensorList& out, const Tensor& grad, const Tensor& query,
                       const Tensor& key, const Tensor& value, const Tensor& output, const Tensor& logsumexp,
                       bool is_causal, const Tensor& attn_mask, std::optional<double> scale) {
  if (!out[which].defined()) {
    auto [dq, dk, dv] =
        nn_sdpa_flash_backward(grad, query, key, value, output, logsumexp, 0.0, is_causal, attn_mask, scale);
    const Tensor* g[3] = {&dq, &dk, &dv};
    for (int i = 0; i < 3; ++i)
      if (need[i] || i == which) out[i] = *g[i];
  }
  return out[which];
}

}  // namespace ember
