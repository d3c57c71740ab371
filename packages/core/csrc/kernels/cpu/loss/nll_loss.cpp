// nll_loss's forward and backward over rows of class scores (kernels/backend.h, LossKernels).
// One sequential sum in row order, in double, as aten's CPU kernel.
#include "kernels/cpu/loss/nll_loss.h"

#include "core/half.h"

namespace ember::loss {

void nll_forward(ScalarType dt, const Nll& a, const void* x, void* out, void* total) {
  EMBER_DISPATCH_FLOAT(dt, "nll_loss_forward", [&] {
    const scalar_t* xp = static_cast<const scalar_t*>(x);
    scalar_t* op = static_cast<scalar_t*>(out);
    double sum = 0, wsum = 0;
    for (int64_t i = 0; i < a.n; ++i) {
      const int64_t cls = a.target[i];
      double v = 0;
      if (cls != a.ignore_index) {
        const double wc = a.weight ? a.weight[cls] : 1.0;
        v = -wc * static_cast<double>(xp[i * a.c + cls]);
        wsum += wc;
      }
      if (a.per_sample) op[i] = static_cast<scalar_t>(v);
      sum += v;
    }
    if (!a.per_sample)  // mean: 0/0 is nan, as PyTorch
      op[0] = static_cast<scalar_t>(a.reduction == 1 ? sum / wsum : sum);
    static_cast<scalar_t*>(total)[0] = static_cast<scalar_t>(a.per_sample ? 0.0 : wsum);
  });
}

void nll_backward(ScalarType dt, const Nll& a, const void* grad, const void* total_weight, void* dx) {
  EMBER_DISPATCH_FLOAT(dt, "nll_loss_backward", [&] {
    const double scale =
        a.reduction == 1 ? 1.0 / static_cast<double>(static_cast<const scalar_t*>(total_weight)[0]) : 1.0;
    scalar_t* dp = static_cast<scalar_t*>(dx);
    const scalar_t* gp = static_cast<const scalar_t*>(grad);
    for (int64_t i = 0; i < a.n; ++i) {
      const int64_t cls = a.target[i];
      if (cls == a.ignore_index) continue;
      const double gv = static_cast<double>(a.per_sample ? gp[i] : gp[0]);
      dp[i * a.c + cls] = static_cast<scalar_t>(-(a.weight ? a.weight[cls] : 1.0) * gv * scale);
    }
  });
}

}  // namespace ember::loss
