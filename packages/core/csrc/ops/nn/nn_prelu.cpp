// _prelu_kernel and _prelu_kernel_backward, aten's kernel pair under torch.prelu (whose checks and
// weight reshape ember.nn.functional.prelu makes first): x > 0 ? x : w x, with w broadcast, and
// the two gradients, grad_weight in the broadcast shape (autograd sums it down to weight's).
#include <initializer_list>
#include <tuple>

#include "core/error.h"
#include "ops.h"
#include "ops/core/pointwise_run.h"

namespace ember {

Tensor _prelu_kernel(const Tensor& self, const Tensor& weight) {
  (void)broadcast_shapes(self.sizes(), weight.sizes());
  same_dtype_as_self(self, {&weight});
  return run_pointwise("_prelu_kernel", EMBER_KERNEL(prelu), DtypeRule::Promote, Tensor(), false, {&self, &weight});
}

// aten's one multi-output pass is two here, each one ternary loop over (self, weight, grad).
std::tuple<Tensor, Tensor> _prelu_kernel_backward(const Tensor& grad_output, const Tensor& self, const Tensor& weight) {
  (void)broadcast_shapes(broadcast_shapes(self.sizes(), weight.sizes()), grad_output.sizes());
  same_dtype_as_self(self, {&weight, &grad_output});
  Tensor gi = run_pointwise("_prelu_kernel_backward", EMBER_KERNEL(prelu_backward_input), DtypeRule::Promote, Tensor(),
                            false, {&self, &weight, &grad_output});
  Tensor gw = run_pointwise("_prelu_kernel_backward", EMBER_KERNEL(prelu_backward_weight), DtypeRule::Promote, Tensor(),
                            false, {&self, &weight, &grad_output});
  return {gi, gw};
}

}  // namespace ember
