// NormKernels' CUDA entries (kernels/cuda/norm_kernels.cu): layer, batch and group norm, the same
// contract as the CPU kernels (kernels/cpu/norm/norm_kernels.h). The affine parameters and the
// running statistics arrive as host arrays and go over to the device once per call.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "kernels/norm_args.h"

namespace ember::cuda {

void layer_norm_forward(const Tensor& x, const Tensor& y, int64_t m, int64_t n, double eps, const void* w,
                        const void* b);
void layer_norm_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                         int64_t m, int64_t n, double eps, const void* w);
// with batch statistics, a.mean / a.var (host arrays) receive them, as on the CPU
void batch_norm_forward(const Tensor& x, const Tensor& y, const norms::BatchForward& a);
void batch_norm_update_running(const Tensor& running_mean, const double* mean, const Tensor& running_var,
                               const double* var, int64_t channels, double momentum, double unbias);
void batch_norm_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                         const norms::NCS& d, bool batch_stats, double eps, const double* rm, const double* rv,
                         norms::ChannelView w);
void group_norm_forward(const Tensor& x, const Tensor& y, const norms::NCS& d, int64_t groups, double eps,
                        norms::ChannelView w, norms::ChannelView b);
void group_norm_backward(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                         const norms::NCS& d, int64_t groups, double eps, norms::ChannelView w);

}  // namespace ember::cuda
