// The fused optimizer steps (CPU): the entries of the backend table's OptimKernels
// (kernels/backend.h). Every tensor is contiguous, float32 or float64 (one dtype per call),
// stepped in place; grad_scale (AMP's GradScaler) divides the gradient first when not null.
#pragma once

#include "core/tensor.h"
#include "kernels/optim_args.h"

namespace ember::optim {

// Adam / AdamW at `step` (1-based); max_sq only with amsgrad.
void adam_steps(const AdamItem* items, size_t n, const AdamArgs& a, const double* grad_scale);
// SGD with optional momentum buffer (first: the buffer starts as the gradient).
void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& buf, const SgdArgs& a, bool first,
              const double* grad_scale);

}  // namespace ember::optim
