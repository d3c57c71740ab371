// Layer, batch and group norm kernels (CPU): the entries of the backend table's NormKernels
// (kernels/backend.h). The op bodies are ops/nn/nn_layer_norm.cpp and ops/nn/nn_norm.cpp.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "kernels/norm_args.h"

namespace ember::norms {

// Layer norm over m contiguous rows of n: y = (x - mean) * rstd * w + b, w and b n op-math
// values (float, double for float64).
void layer_forward(const Tensor& x, const Tensor& y, int64_t m, int64_t n, double eps, const void* w, const void* b);
// dx (undefined: not wanted) and the column sums dw (undefined: not wanted) and db, of the
// op-math dtype; w as in the forward.
void layer_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db, int64_t m,
                    int64_t n, double eps, const void* w);

void batch_forward(const Tensor& x, const Tensor& y, const BatchForward& a);
// running = (1 - momentum) * running + momentum * factor * batch[c], channel by channel in place.
void batch_update_running(const Tensor& running_mean, const double* mean, const Tensor& running_var, const double* var,
                          int64_t channels, double momentum, double unbias);
// d(bias), d(weight) per channel into db / dw (op-math dtype; dw may be undefined) and dx
// when defined; rm / rv: the running statistics unless batch_stats.
void batch_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                    const NCS& d, bool batch_stats, double eps, const double* rm, const double* rv,
                    norms::ChannelView w);

// Group norm with `groups` groups of channels; w, b: one double per channel.
void group_forward(const Tensor& x, const Tensor& y, const NCS& d, int64_t groups, double eps, norms::ChannelView w,
                   norms::ChannelView b);
void group_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                    const NCS& d, int64_t groups, double eps, norms::ChannelView w);

}  // namespace ember::norms
