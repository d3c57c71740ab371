// The options of the fused optimizer steps (kernels/backend.h, OptimKernels): device-independent,
// so the backend table can name them for every device.
#pragma once
#include "core/tensor.h"

namespace ember::optim {

struct AdamArgs {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, decoupled;  // decoupled: AdamW's weight decay
};

// One parameter's fused Adam step: its tensors (max_sq undefined without amsgrad) and step count.
struct AdamItem {
  Tensor param, grad, exp_avg, exp_avg_sq, max_sq;
  double step;
};

struct SgdArgs {
  double weight_decay, momentum, lr, dampening;
  bool nesterov, maximize;
};

}  // namespace ember::optim
