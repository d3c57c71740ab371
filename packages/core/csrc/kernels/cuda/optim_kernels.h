// OptimKernels' CUDA entries (kernels/cuda/optim_kernels.cu): the fused Adam/AdamW and SGD steps
// over one dense parameter and its state, all on one device.
#pragma once
#include "core/tensor.h"
#include "kernels/optim_args.h"

namespace ember::cuda {

void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const Tensor& max_sq, double step, const optim::AdamArgs& a, const double* grad_scale);
void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& buf, const optim::SgdArgs& a, bool first,
              const double* grad_scale);

}  // namespace ember::cuda
