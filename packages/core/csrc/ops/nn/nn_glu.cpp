// glu and glu_backward (ops/nn_activation.yaml), as aten's: glu is one binary kernel over the two
// halves of self; glu_backward_cpu_out writes sigmoid(second half) into the result's first half,
// the fused (1 - s) s a g into its second half, then multiplies the first half by grad_output, so
// its errors come in that order (the sigmoid's cast check, then its iterator's shapes and dtypes).
#include "core/error.h"
#include "ops.h"
#include "ops/core/pointwise_run.h"

namespace ember {

namespace {

// The halving dim, checked as aten's glu meta function and glu_backward_cpu_out do.
int64_t halving_dim(const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "glu does not support 0-dimensional tensors");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.size(d);
  EMBER_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ", n);
  return d;
}

Tensor glu_into(const Tensor& self, int64_t dim, const Tensor& out) {
  const int64_t d = halving_dim(self, dim), h = self.size(d) / 2;
  const Tensor a = narrow(self, d, 0, h), b = narrow(self, d, h, h);
  return run_pointwise("glu", EMBER_KERNEL(glu), DtypeRule::Promote, out, false, {&a, &b});
}

}  // namespace

Tensor glu(const Tensor& self, int64_t dim) { return glu_into(self, dim, Tensor()); }
Tensor glu_out(const Tensor& self, int64_t dim, const Tensor& out) { return glu_into(self, dim, out); }

Tensor glu_backward(const Tensor& grad_output, const Tensor& self, int64_t dim) {
  const int64_t d = halving_dim(self, dim), h = self.size(d) / 2;
  Tensor grad_input = empty(self.sizes(), self.dtype(), self.device());
  const Tensor first = narrow(self, d, 0, h), second = narrow(self, d, h, h);
  const Tensor gi_first = narrow(grad_input, d, 0, h), gi_second = narrow(grad_input, d, h, h);
  sigmoid_out(second, gi_first);
  (void)broadcast_shapes(gi_first.sizes(), grad_output.sizes());
  same_dtype_as_self(self, {&grad_output});
  run_pointwise("glu_backward", EMBER_KERNEL(glu_backward), DtypeRule::Promote, gi_second, false,
                {&gi_first, &first, &grad_output});
  mul_(gi_first, grad_output);
  return grad_input;
}

}  // namespace ember
