// OptimKernels' CUDA entries (kernels/cuda/optim_kernels.cu): the fused Adam/AdamW and SGD steps
// over dense parameters and their state, all on one device.
#pragma once
#include "core/tensor.h"
#include "kernels/optim_args.h"

namespace ember::cuda {

// Every parameter (dense, on one device) in as few launches as their count allows.
void adam_steps(const optim::AdamItem* items, size_t n, const optim::AdamArgs& a, const double* grad_scale);
void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& buf, const optim::SgdArgs& a, bool first,
              const double* grad_scale);

}  // namespace ember::cuda
