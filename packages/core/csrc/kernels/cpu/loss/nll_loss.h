// nll_loss's forward and backward (CPU): the entries of the backend table's LossKernels
// (op bodies: ops/nn/nn_nll_loss.cpp).
#pragma once
#include "core/scalar_type.h"
#include "kernels/loss_args.h"

namespace ember::loss {

// out (a.n losses when per_sample, else one) and total (the weight sum; 0 per sample), of the
// floating dtype dt, from x's rows.
void nll_forward(ScalarType dt, const Nll& a, const void* x, void* out, void* total);
// dx (zeroed, a.n rows of a.c, dtype dt) at each row's class = -weight * grad * scale, grad the
// row's (per_sample) or the one value.
void nll_backward(ScalarType dt, const Nll& a, const void* grad, const void* total_weight, void* dx);

}  // namespace ember::loss
