// The options of the fused optimizer steps (kernels/backend.h, OptimKernels): device-independent,
// so the backend table can name them for every device.
#pragma once

namespace ember::optim {

struct AdamArgs {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, decoupled;  // decoupled: AdamW's weight decay
};

struct SgdArgs {
  double weight_decay, momentum, lr, dampening;
  bool nesterov, maximize;
};

}  // namespace ember::optim
