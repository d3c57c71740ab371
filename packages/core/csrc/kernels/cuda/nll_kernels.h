// LossKernels' CUDA entries (kernels/cuda/nll_kernels.cu): x, out, total and dx on the device;
// the targets, class weights and incoming gradient as the op body read them, on the host.
#pragma once
#include "core/scalar_type.h"
#include "kernels/loss_args.h"

namespace ember::cuda {

void nll_forward(ScalarType dt, const loss::Nll& a, const void* x, void* out, void* total);
void nll_backward(ScalarType dt, const loss::Nll& a, const void* grad, const void* total_weight, void* dx);

}  // namespace ember::cuda
