// mse_loss / mse_loss_backward as aten computes them: the squared difference elementwise, then
// aten's loss reduction (0 none, 1 mean, 2 sum) through the mean/sum ops (their events nest in
// mse_loss's, as in PyTorch's trace). ember.nn.functional.mse_loss checks dtypes and broadcasts
// self and target first, as F.mse_loss does.
#include "core/profiler_op.h"
#include "ops.h"

namespace ember {

namespace {
const Scalar kOne(int64_t(1));

// aten's gradient scale: 2 / numel for the mean, 2 otherwise.
double mse_norm(const Tensor& self, int64_t reduction) {
  return reduction == 1 ? 2.0 / static_cast<double>(self.numel()) : 2.0;
}
}  // namespace

Tensor nn_mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  Tensor loss = sub(self, target, kOne);
  mul_(loss, loss);
  if (reduction == 1)
    return profiler::nested_op("aten::mean", {&loss, nullptr}, [&] { return mean(loss, std::nullopt); });
  if (reduction == 2)
    return profiler::nested_op("aten::sum", {&loss, nullptr}, [&] { return sum(loss, std::nullopt); });
  return loss;
}

// norm * (self - target) * grad_output, in that order (aten's kernel); grad_output is 0-d for a
// reduced loss and the loss's shape for reduction none.
Tensor nn_mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  Tensor g = sub(self, target, kOne);
  mul_(g, wrap_scalar(Scalar(mse_norm(self, reduction))));
  mul_(g, grad_output);
  return g;
}

}  // namespace ember
