// The constants of the fused optimizer steps' element loops, in the parameter's type: shared by
// the CPU loops (kernels/cpu/optim/fused_steps.cpp) and the CUDA kernels (kernels/cuda/optim_kernels.cu).
// Kept out of optim_args.h, which every op includes through the backend table.
#pragma once
#include <cmath>

#include "kernels/optim_args.h"

namespace ember::optim {

template <class T>
struct AdamConsts {
  T wd, decay, w1, b2, c2, b2s, eps, step_size, scale, sign;
};

template <class T>
AdamConsts<T> adam_consts(const AdamArgs& a, double step, const double* grad_scale) {
  const double bias1 = 1 - std::pow(a.beta1, step);
  const double bias2_sqrt = std::sqrt(1 - std::pow(a.beta2, step));
  return {T(a.weight_decay),
          T(1 - a.lr * a.weight_decay),
          T(1 - a.beta1),
          T(a.beta2),
          T(1 - a.beta2),
          T(bias2_sqrt),
          T(a.eps),
          T(-(a.lr / bias1)),
          T(grad_scale ? *grad_scale : 1.0),
          T(a.maximize ? -1 : 1)};
}

// Adam's weight decay kind: 0 none, 1 L2 (added to the gradient), 2 decoupled (AdamW).
inline int adam_wd_kind(const AdamArgs& a) { return a.weight_decay == 0 ? 0 : a.decoupled ? 2 : 1; }

template <class T>
struct SgdConsts {
  T wd, mu, keep, step, scale, sign;
};

template <class T>
SgdConsts<T> sgd_consts(const SgdArgs& a, const double* grad_scale) {
  return {T(a.weight_decay),     T(a.momentum), T(1 - a.dampening), T(-a.lr), T(grad_scale ? *grad_scale : 1.0),
          T(a.maximize ? -1 : 1)};
}

// SGD's momentum phase: 0 none, 1 first step (the buffer starts as the gradient), 2 later steps.
inline int sgd_momentum_phase(const SgdArgs& a, bool first) { return a.momentum == 0 ? 0 : first ? 1 : 2; }

}  // namespace ember::optim
