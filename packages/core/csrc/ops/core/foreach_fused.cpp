// torch's fused optimizer steps (_fused_adam_, _fused_adamw_, _fused_sgd_): checks, dense
// working copies of non-contiguous tensors, and the backend's fused steps
// (kernels/cpu/optim/fused_steps.cpp: the whole update in a single pass over its elements; Adam
// takes a device's parameters in one call).
#include <array>
#include <string>
#include <vector>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"

namespace ember {

namespace {

bool same_sizes(IntArrayRef a, IntArrayRef b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// `written`: the step stores into the list's tensors, which then may not alias themselves.
void check_list(const char* op, const char* what, const TensorList& ref, const TensorList& l, bool written = true) {
  EMBER_CHECK(l.size() == ref.size(), op, ": expected ", what, " to have ", ref.size(), " tensors, got ", l.size());
  for (size_t i = 0; i < l.size(); ++i) {
    EMBER_CHECK(l[i].dtype() == ref[i].dtype() && same_sizes(l[i].sizes(), ref[i].sizes()), op, ": ", what, "[", i,
                "] must have the dtype and shape of params[", i, "]");
    if (written) check_no_internal_overlap(l[i]);
  }
}

// The step is elementwise, so any layout is fine (PyTorch's CPU kernels walk raw memory and pair up
// the wrong elements of non-contiguous tensors: torch_known_wrong.py). The loops below walk dense
// memory: a non-contiguous tensor is stepped in a contiguous copy that is written back after.
struct Dense {
  Tensor orig, work;
  explicit Dense(const Tensor& t)
      : orig(t), work(t.defined() && !t.is_contiguous() ? clone(t, MemoryFormat::Contiguous) : t) {}
  void write_back() const {
    if (!work.same(orig)) copy_into(orig, work);
  }
};

// The aten kernel whose dtype dispatch names a refused parameter dtype.
const char* fused_kernel(const char* op) {
  return std::string(op).find("sgd") != std::string::npos ? "fused_sgd_kernel" : "fused_adam_kernel";
}

void check_params(const char* op, const TensorList& params) {
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    if (is_complex(p.dtype())) continue;  // refused by the dispatch, after the lists' lengths (refuse_complex)
    if (is_shell_unsigned(p.dtype()))     // aten's kernel dispatch names them
      dtype_not_implemented(fused_kernel(op), p.dtype());
    EMBER_CHECK(p.dtype() == ScalarType::Float32 || p.dtype() == ScalarType::Float64, op,
                ": params must be float32 or float64, got ", legacy_name(p.dtype()), " at index ", i);
    check_inplace(p, op);
    check_no_internal_overlap(p);
  }
}

// aten's per-parameter dtype dispatch, which has no complex case
void refuse_complex(const char* op, const TensorList& params) {
  for (const Tensor& p : params)
    if (is_complex(p.dtype())) dtype_not_implemented(fused_kernel(op), p.dtype());
}

// grad_scale / found_inf, as torch's fused optimizers take them (AMP's GradScaler): its kernels
// read both as float pointers before any other check.
void check_scale_args(const Tensor& grad_scale, const Tensor& found_inf) {
  for (const Tensor* t : {&grad_scale, &found_inf})
    EMBER_CHECK(!t->defined() || t->dtype() == ScalarType::Float32, "expected scalar type Float but found ",
                legacy_name(t->dtype()));
}
bool skip_step(const Tensor& found_inf) { return found_inf.defined() && found_inf.item().to_double() == 1.0; }

using optim::AdamArgs;

TensorList fused_adam(const char* op, const TensorList& self, const TensorList& grads, const TensorList& exp_avgs,
                      const TensorList& exp_avg_sqs, const TensorList& max_exp_avg_sqs, const TensorList& state_steps,
                      const AdamArgs& a, const Tensor& grad_scale, const Tensor& found_inf) {
  check_scale_args(grad_scale, found_inf);
  check_params(op, self);
  check_list(op, "grads", self, grads, grad_scale.defined());
  check_list(op, "exp_avgs", self, exp_avgs);
  check_list(op, "exp_avg_sqs", self, exp_avg_sqs);
  if (a.amsgrad) check_list(op, "max_exp_avg_sqs", self, max_exp_avg_sqs);
  EMBER_CHECK(state_steps.size() == self.size(), op, ": expected state_steps to have ", self.size(), " tensors, got ",
              state_steps.size());
  if (skip_step(found_inf)) return self;
  refuse_complex(op, self);
  double scale = 0;
  if (grad_scale.defined()) scale = grad_scale.item().to_double();
  // every parameter's dense working tensors, stepped a device's run at a time, then written back
  std::vector<std::array<Dense, 5>> work;
  std::vector<optim::AdamItem> items;
  work.reserve(self.size());
  items.reserve(self.size());
  for (size_t i = 0; i < self.size(); ++i) {
    work.push_back({Dense(self[i]), Dense(grads[i]), Dense(exp_avgs[i]), Dense(exp_avg_sqs[i]),
                    Dense(a.amsgrad ? max_exp_avg_sqs[i] : Tensor())});
    const auto& w = work.back();
    items.push_back({w[0].work, w[1].work, w[2].work, w[3].work, w[4].work, state_steps[i].item().to_double()});
  }
  for (size_t i = 0; i < items.size();) {
    size_t j = i + 1;
    while (j < items.size() && self[j].device() == self[i].device()) ++j;
    backend(self[i]).optim.adam_steps(items.data() + i, j - i, a, grad_scale.defined() ? &scale : nullptr);
    i = j;
  }
  for (size_t i = 0; i < self.size(); ++i) {
    for (size_t k : {0, 2, 3, 4}) work[i][k].write_back();
    if (grad_scale.defined()) work[i][1].write_back();
    for (const Tensor* t : {&self[i], &exp_avgs[i], &exp_avg_sqs[i]}) t->bump_version();
    if (a.amsgrad) max_exp_avg_sqs[i].bump_version();
    if (grad_scale.defined()) grads[i].bump_version();
  }
  return self;
}

}  // namespace

TensorList _fused_adam_(const TensorList& self, const TensorList& grads, const TensorList& exp_avgs,
                        const TensorList& exp_avg_sqs, const TensorList& max_exp_avg_sqs, const TensorList& state_steps,
                        double lr, double beta1, double beta2, double weight_decay, double eps, bool amsgrad,
                        bool maximize, const Tensor& grad_scale, const Tensor& found_inf) {
  return fused_adam("_fused_adam_", self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                    AdamArgs{lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, false}, grad_scale, found_inf);
}

TensorList _fused_adamw_(const TensorList& self, const TensorList& grads, const TensorList& exp_avgs,
                         const TensorList& exp_avg_sqs, const TensorList& max_exp_avg_sqs,
                         const TensorList& state_steps, double lr, double beta1, double beta2, double weight_decay,
                         double eps, bool amsgrad, bool maximize, const Tensor& grad_scale, const Tensor& found_inf) {
  return fused_adam("_fused_adamw_", self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                    AdamArgs{lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, true}, grad_scale, found_inf);
}

TensorList _fused_sgd_(const TensorList& self, const TensorList& grads, const TensorList& momentum_buffer_list,
                       double weight_decay, double momentum, double lr, double dampening, bool nesterov, bool maximize,
                       bool is_first_step, const Tensor& grad_scale, const Tensor& found_inf) {
  const char* op = "_fused_sgd_";
  check_scale_args(grad_scale, found_inf);
  check_params(op, self);
  check_list(op, "grads", self, grads, grad_scale.defined());
  if (momentum != 0) check_list(op, "momentum_buffer_list", self, momentum_buffer_list);
  // PyTorch's rule: without momentum there must be no buffers (its message).
  EMBER_CHECK(momentum != 0 || momentum_buffer_list.empty(),
              "Expected momentum_buffer_list.empty() to be true, but got false. (", op, ": momentum is 0, got ",
              momentum_buffer_list.size(), " momentum buffers)");
  if (skip_step(found_inf)) return self;
  refuse_complex(op, self);
  double scale = 0;
  if (grad_scale.defined()) scale = grad_scale.item().to_double();
  const double* sp = grad_scale.defined() ? &scale : nullptr;
  const optim::SgdArgs args{weight_decay, momentum, lr, dampening, nesterov, maximize};
  for (size_t i = 0; i < self.size(); ++i) {
    const Tensor& buf = momentum != 0 ? momentum_buffer_list[i] : Tensor();
    const Dense p(self[i]), g(grads[i]), b(buf);
    backend(self[i]).optim.sgd_step(p.work, g.work, b.work, args, is_first_step, sp);
    p.write_back();
    b.write_back();
    if (sp) g.write_back();
    self[i].bump_version();
    if (momentum != 0) buf.bump_version();
    if (sp) grads[i].bump_version();
  }
  return self;
}

}  // namespace ember
