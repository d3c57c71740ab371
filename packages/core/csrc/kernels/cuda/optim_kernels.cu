// The fused optimizer steps on the GPU: each element follows the CPU loops' operations in the same
// order (kernels/cpu/optim/fused_steps.cpp: lerp's two branches, the bias-corrected square root,
// amsgrad's NaN-keeping max), one thread per element over a grid-stride loop; the options are
// plain arguments (a branch the whole warp takes the same way).
#include <cmath>

#include "kernels/cuda/optim_kernels.h"
#include "kernels/cuda/pointwise_launch.cuh"

namespace ember::cuda {

namespace {

template <class T>
struct AdamConsts {
  T wd, decay, w1, b2, c2, b2s, eps, step_size, scale, sign;
  int wd_kind;  // 0 none, 1 L2 (into the gradient), 2 decoupled (AdamW)
  bool scaled, ams, low_w;
};

template <class T>
__global__ void adam_kernel(T* p, T* g, T* m, T* v, T* mx, const AdamConsts<T> c, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    T gi = g[i];
    if (c.scaled) {
      gi = gi / c.scale;
      g[i] = gi;
    }
    gi = gi * c.sign;
    const T pi = p[i];
    if (c.wd_kind == 2) p[i] = pi * c.decay;
    if (c.wd_kind == 1) gi = gi + c.wd * pi;
    const T mi = c.low_w ? m[i] + c.w1 * (gi - m[i]) : gi - (gi - m[i]) * (T(1) - c.w1);
    T vi = v[i] * c.b2;
    vi = vi + c.c2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    if (c.ams) {
      const T old = mx[i];
      vi = (old != old) ? old : (vi != vi) ? vi : (old > vi ? old : vi);
      mx[i] = vi;
    }
    T denom = sqrt(vi) / c.b2s;
    denom = denom + c.eps;
    p[i] = p[i] + c.step_size * (mi / denom);
  }
}

template <class T>
struct SgdConsts {
  T wd, mu, keep, step, scale, sign;
  int mom;  // 0 none, 1 first step (the buffer starts as the gradient), 2 later steps
  bool scaled, use_wd, nesterov;
};

template <class T>
__global__ void sgd_kernel(T* p, T* g, T* buf, const SgdConsts<T> c, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    T gi = g[i];
    if (c.scaled) {
      gi = gi / c.scale;
      g[i] = gi;
    }
    gi = gi * c.sign;
    if (c.use_wd) gi = gi + c.wd * p[i];
    if (c.mom == 1) buf[i] = gi;
    if (c.mom == 2) {
      T b = buf[i] * c.mu;
      b = b + c.keep * gi;
      buf[i] = b;
    }
    if (c.mom != 0) gi = c.nesterov ? gi + c.mu * buf[i] : buf[i];
    p[i] = p[i] + c.step * gi;
  }
}

template <class T>
void adam_typed(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                const Tensor& max_sq, double step, const optim::AdamArgs& a, const double* grad_scale) {
  const double bias1 = 1 - std::pow(a.beta1, step);
  const double bias2_sqrt = std::sqrt(1 - std::pow(a.beta2, step));
  const AdamConsts<T> c{T(a.weight_decay),
                        T(1 - a.lr * a.weight_decay),
                        T(1 - a.beta1),
                        T(a.beta2),
                        T(1 - a.beta2),
                        T(bias2_sqrt),
                        T(a.eps),
                        T(-(a.lr / bias1)),
                        T(grad_scale ? *grad_scale : 1.0),
                        T(a.maximize ? -1 : 1),
                        a.weight_decay == 0 ? 0
                        : a.decoupled       ? 2
                                            : 1,
                        grad_scale != nullptr,
                        a.amsgrad,
                        std::abs(T(1 - a.beta1)) < T(0.5)};
  const int64_t n = param.numel();
  adam_kernel<T><<<grid_for(n), 256>>>(param.data<T>(), grad.data<T>(), exp_avg.data<T>(), exp_avg_sq.data<T>(),
                                       a.amsgrad ? max_sq.data<T>() : nullptr, c, n);
}

template <class T>
void sgd_typed(const Tensor& param, const Tensor& grad, const Tensor& buf, const optim::SgdArgs& a, bool first,
               const double* grad_scale) {
  const SgdConsts<T> c{T(a.weight_decay),
                       T(a.momentum),
                       T(1 - a.dampening),
                       T(-a.lr),
                       T(grad_scale ? *grad_scale : 1.0),
                       T(a.maximize ? -1 : 1),
                       a.momentum == 0 ? 0
                       : first         ? 1
                                       : 2,
                       grad_scale != nullptr,
                       a.weight_decay != 0,
                       a.nesterov};
  const int64_t n = param.numel();
  sgd_kernel<T><<<grid_for(n), 256>>>(param.data<T>(), grad.data<T>(), a.momentum != 0 ? buf.data<T>() : nullptr, c, n);
}

}  // namespace

void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const Tensor& max_sq, double step, const optim::AdamArgs& a, const double* grad_scale) {
  if (param.numel() == 0) return;
  const LaunchDevice on(param.device().index);
  if (param.dtype() == ScalarType::Float32)
    adam_typed<float>(param, grad, exp_avg, exp_avg_sq, max_sq, step, a, grad_scale);
  else adam_typed<double>(param, grad, exp_avg, exp_avg_sq, max_sq, step, a, grad_scale);
  check_launch("fused adam step");
}

void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& buf, const optim::SgdArgs& a, bool first,
              const double* grad_scale) {
  if (param.numel() == 0) return;
  const LaunchDevice on(param.device().index);
  if (param.dtype() == ScalarType::Float32) sgd_typed<float>(param, grad, buf, a, first, grad_scale);
  else sgd_typed<double>(param, grad, buf, a, first, grad_scale);
  check_launch("fused sgd step");
}

}  // namespace ember::cuda
