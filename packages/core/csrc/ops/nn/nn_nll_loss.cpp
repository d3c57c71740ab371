// nll_loss_forward / nll_loss_backward: the negative log-likelihood of the target class over
// input (N, C) or (C) in one pass, with optional class weights, ignore_index and aten's
// reductions (0 none, 1 mean, 2 sum). cross_entropy is log_softmax followed by this.
// On the CPU the targets are bound-checked before anything is read: an IndexError, never a stray
// read. A CUDA op's targets, weights and gradient stay on the device and its kernels check the
// targets, reporting a bad one as the same IndexError at the next wait for the device
// (kernels/cuda/device_error.h): the op never waits. The loops over the rows are the backend
// table's LossKernels.
#include <vector>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/nn/nn_norm_common.h"

namespace ember {

using norm_detail::dense_on;

namespace {

// input (N, C) with target (N), or one sample: input (C) with a 0-d target (N = 1). Higher
// dims are flattened to (N*, C) by ember.nn.functional, as aten's nll_loss_nd does.
struct Layout {
  int64_t n = 1, c = 1;
};

Layout layout_of(const Tensor& self, const Tensor& target, bool backward) {
  EMBER_CHECK(self.dim() >= 1 && self.dim() <= 2, "input tensor should be 1D or 2D");
  EMBER_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  // aten's forward checks the target dtype between the ranks and the sizes.
  if (!backward)
    EMBER_CHECK(target.dtype() == ScalarType::Int64 || target.dtype() == ScalarType::UInt8,
                "expected target dtype to be Long or Byte, but got ", legacy_name(target.dtype()));
  Layout l;
  if (self.dim() == 1) {
    // aten's backward only asks size(0) to agree (then reads target[0]); its forward wants one target.
    if (backward)
      EMBER_CHECK(target.dim() == 0 || self.sizes()[0] == target.sizes()[0],
                  "size mismatch (got input: ", shape_str(self.sizes()), ", target: ", shape_str(target.sizes()), ")");
    else
      EMBER_CHECK_KIND(ErrorKind::Value, target.numel() == 1,
                       "For 1D input, 1D target must have size 1, but got target size: ", target.numel());
    l.c = self.sizes()[0];
    return l;
  }
  l.n = self.sizes()[0];
  l.c = self.sizes()[1];
  // PyTorch compares self.size(0) with target.size(0), which fails first for a 0-d target.
  EMBER_CHECK_INDEX(target.dim() > 0, "Dimension specified as 0 but tensor has no dimensions");
  EMBER_CHECK(target.sizes()[0] == l.n, "size mismatch (got input: ", shape_str(self.sizes()),
              ", target: ", shape_str(target.sizes()), ")");
  return l;
}

// Every non-ignored target in [0, C); the first bad one, in order, is reported.
void check_targets(const int64_t* t, int64_t count, int64_t c, int64_t ignore_index) {
  for (int64_t i = 0; i < count; ++i)
    if (t[i] != ignore_index && (t[i] < 0 || t[i] >= c)) fail(ErrorKind::Index, "Target ", t[i], " is out of bounds.");
}

void check_weight_numel(const Tensor& weight, int64_t c) {
  EMBER_CHECK(!weight.defined() || weight.numel() == c, "weight tensor should be defined either for all ", c,
              " classes or no classes but got weight tensor of shape: ", shape_str(weight.sizes()));
}

// Class weights as c doubles on x's device (undefined when absent: the kernels weigh each class 1).
Tensor class_weights(const Tensor& weight, int64_t c, const Tensor& x) {
  if (!weight.defined()) return Tensor();
  check_weight_numel(weight, c);
  return dense_on(weight, ScalarType::Float64, x);
}

// The targets as n contiguous int64 on x's device; on the CPU bound-checked here (a CUDA kernel
// checks its own).
Tensor checked_targets(const Tensor& target, const Layout& l, int64_t ignore_index, const Tensor& x) {
  Tensor t = dense_on(target, ScalarType::Int64, x);
  if (x.device().is_cpu()) check_targets(t.data<int64_t>(), l.n, l.c, ignore_index);
  return t;
}

// What the forward checks and reads: the layout, the bound-checked targets, the class weights,
// in PyTorch's order (shapes and weight, the target dtype and the kernel's dtype dispatch, then
// the target values). Like aten, any reduction other than 0 (none) and 1 (mean) sums, and a 1-D
// input with reduction none gives the 0-d loss of its one sample.
struct Prepared {
  Layout l;
  Tensor target;  // contiguous int64, on the input's device
  Tensor w;       // c doubles, on the input's device (or undefined: all 1)
};

Prepared prepare(const char* kernel, const Tensor& self, const Tensor& target, const Tensor& weight,
                 int64_t ignore_index) {
  Layout l = layout_of(self, target, false);
  // the forward wants a 1-d weight (a 0-d one of one element too is refused; the backward takes it)
  EMBER_CHECK(!weight.defined() || weight.dim() == 1, "weight tensor should be defined either for all ", l.c,
              " classes or no classes but got weight tensor of shape: ", shape_str(weight.sizes()));
  check_weight_numel(weight, l.c);
  // The forward checks the target dtype before its dtype dispatch (the backward after it).
  EMBER_CHECK(target.dtype() == ScalarType::Int64 || target.dtype() == ScalarType::UInt8,
              "expected target dtype to be Long or Byte, but got ", legacy_name(target.dtype()));
  if (!is_floating(self.dtype())) dtype_not_implemented(kernel, self.dtype());
  // The kernel reads the weights as the input's type before the targets (a complex weight is refused
  // here, before any conversion could warn about its imaginary part).
  EMBER_CHECK(!weight.defined() || weight.dtype() == self.dtype(), "expected scalar type ", legacy_name(self.dtype()),
              " but found ", legacy_name(weight.dtype()));
  Tensor w = class_weights(weight, l.c, self);
  return Prepared{l, checked_targets(target, l, ignore_index, self), std::move(w)};
}

}  // namespace

std::tuple<Tensor, Tensor> nn_nll_loss_forward(const Tensor& self, const Tensor& target, const Tensor& weight,
                                               int64_t reduction, int64_t ignore_index) {
  const Prepared pr = prepare("nll_loss_out_frame", self, target, weight, ignore_index);
  const Layout& l = pr.l;
  const bool per_sample = reduction == 0 && self.dim() == 2;
  Tensor x = contiguous(self, MemoryFormat::Contiguous);
  Tensor out = per_sample ? empty(target.sizes(), self.dtype(), self.device())
                          : empty(IntArrayRef(), self.dtype(), self.device());
  Tensor total = empty(IntArrayRef(), self.dtype(), self.device());
  const loss::Nll a{l.n,        l.c,      pr.target.data<int64_t>(), pr.w.data_or_null<double>(), ignore_index,
                    per_sample, reduction};
  backend(x).loss.nll_forward(self.dtype(), a, x.raw(), out.raw(), total.raw());
  return {out, total};
}

// aten's backward order: its meta (ranks and sizes, total_weight, weight and grad_output sizes),
// the dtype dispatch, then the kernel's typed reads (target, weight, total_weight, grad_output),
// and only then the target values.
Tensor nn_nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, const Tensor& weight,
                            int64_t reduction, int64_t ignore_index, const Tensor& total_weight) {
  const Layout l = layout_of(self, target, true);
  EMBER_CHECK(total_weight.numel() == 1,
              "expected total_weight to be a  single element tensor, got: ", shape_str(total_weight.sizes()), " (",
              total_weight.numel(), " elements)");
  EMBER_CHECK(!weight.defined() || weight.numel() == l.c,
              "weight tensor should be defined either for all or no classes");
  const bool per_sample = reduction == 0 && self.dim() == 2;
  if (per_sample) {
    const bool ok = grad_output.dim() == 1 && grad_output.sizes()[0] == l.n;
    // aten builds this message with grad_output.size(0), which fails first for a 0-d one.
    EMBER_CHECK_INDEX(ok || grad_output.dim() > 0, "Dimension specified as 0 but tensor has no dimensions");
    EMBER_CHECK(ok, "Expected a tensor of dimension 1 and tensor.size[0] == ", l.n, " but got: dimension ",
                grad_output.dim(), " and tensor.size[0] = ", grad_output.sizes()[0]);
  } else {
    EMBER_CHECK(grad_output.dim() <= 1 && grad_output.numel() == 1,
                "Expected a single element grad_output tensor, but got: ", shape_str(grad_output.sizes()));
  }
  if (!is_floating(self.dtype())) dtype_not_implemented("nll_loss_backward_out_frame", self.dtype());
  const ScalarType td = target.dtype() == ScalarType::UInt8 ? ScalarType::UInt8 : ScalarType::Int64;
  std::vector<const Tensor*> typed{&target};
  if (weight.defined()) typed.push_back(&weight);
  if (!per_sample) typed.push_back(&total_weight);
  typed.push_back(&grad_output);
  for (const Tensor* t : typed) {
    const ScalarType want = t == &target ? td : self.dtype();
    EMBER_CHECK(t->dtype() == want, "expected scalar type ", legacy_name(want), " but found ", legacy_name(t->dtype()));
  }
  const Tensor tc = checked_targets(target, l, ignore_index, self);
  const Tensor w = class_weights(weight, l.c, self);
  Tensor dx = zeros(self.sizes(), self.dtype(), self.device());
  const Tensor g = dense_on(grad_output, self.dtype(), self);
  // the mean's divisor is read by the kernel, where total_weight lives
  const Tensor tw = dense_on(total_weight, self.dtype(), self);
  const loss::Nll a{l.n, l.c, tc.data<int64_t>(), w.data_or_null<double>(), ignore_index, per_sample, reduction};
  backend(dx).loss.nll_backward(self.dtype(), a, g.raw(), tw.raw(), dx.raw());
  return dx;
}

}  // namespace ember
