// torch's fused optimizer steps (_fused_adam_, _fused_adamw_, _fused_sgd_): the whole update
// of one parameter in a single pass over its elements, instead of one pass per foreach op.
// Each element follows the same float operations, in the same order, as the optimizer's
// per-parameter path (lerp, addcmul, sqrt / bias2_sqrt + eps, addcdiv), so results agree
// with it (to the last bit unless the compiler contracts a multiply-add differently).
#include <cmath>
#include <string>

#include "../core/parallel.h"
#include "checks.h"
#include "ops.h"

namespace ember {

namespace {

bool same_sizes(IntArrayRef a, IntArrayRef b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

void check_list(const char* op, const char* what, const TensorList& ref, const TensorList& l) {
  EMBER_CHECK(l.size() == ref.size(), op, ": expected ", what, " to have ", ref.size(), " tensors, got ",
              l.size());
  for (size_t i = 0; i < l.size(); ++i) {
    EMBER_CHECK(l[i].dtype() == ref[i].dtype() && same_sizes(l[i].sizes(), ref[i].sizes()), op, ": ", what, "[", i,
                "] must have the dtype and shape of params[", i, "]");
    EMBER_CHECK(l[i].is_contiguous(), op, ": ", what, "[", i, "] must be contiguous");
  }
}

void check_params(const char* op, const TensorList& params) {
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    EMBER_CHECK(p.dtype() == ScalarType::Float32 || p.dtype() == ScalarType::Float64, op,
                ": params must be float32 or float64, got ", legacy_name(p.dtype()), " at index ", i);
    EMBER_CHECK(p.is_contiguous(), op, ": params[", i, "] must be contiguous");
    check_inplace(p, op);
  }
}

// grad_scale / found_inf, as torch's fused optimizers take them (AMP's GradScaler).
bool skip_step(const Tensor& found_inf) { return found_inf.defined() && found_inf.item().to_double() == 1.0; }

struct AdamArgs {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, decoupled;
};

template <class T>
T lerp_like(T a, T b, T w) {  // ember's lerp kernel (exact at w = 0 and 1)
  return std::abs(w) < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
}

template <class T>
void adam_one(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
              const Tensor& max_sq, double step, const AdamArgs& a, const double* grad_scale) {
  T* p = param.data<T>();
  T* g = grad.data<T>();
  T* m = exp_avg.data<T>();
  T* v = exp_avg_sq.data<T>();
  T* mx = a.amsgrad ? max_sq.data<T>() : nullptr;
  const double bias1 = 1 - std::pow(a.beta1, step);
  const double bias2_sqrt = std::sqrt(1 - std::pow(a.beta2, step));
  const T wd = T(a.weight_decay), decay = T(1 - a.lr * a.weight_decay), w1 = T(1 - a.beta1);
  const T b2 = T(a.beta2), c2 = T(1 - a.beta2), b2s = T(bias2_sqrt), eps = T(a.eps);
  const T step_size = T(-(a.lr / bias1));
  const bool has_wd = a.weight_decay != 0;
  parallel_for(0, param.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      T gi = g[i];
      if (grad_scale) {
        gi = gi / T(*grad_scale);
        g[i] = gi;
      }
      if (a.maximize) gi = -gi;
      T pi = p[i];
      if (has_wd) {
        if (a.decoupled) pi = pi * decay;
        else gi = gi + wd * pi;
      }
      const T mi = lerp_like(m[i], gi, w1);
      T vi = v[i] * b2;
      vi = vi + c2 * gi * gi;
      m[i] = mi;
      v[i] = vi;
      T s = vi;
      if (mx) {
        const T old = mx[i];
        s = (old != old) ? old : (vi != vi) ? vi : (old > vi ? old : vi);
        mx[i] = s;
      }
      T denom = std::sqrt(s) / b2s;
      denom = denom + eps;
      p[i] = pi + step_size * (mi / denom);
    }
  });
}

TensorList fused_adam(const char* op, const TensorList& self, const TensorList& grads, const TensorList& exp_avgs,
                      const TensorList& exp_avg_sqs, const TensorList& max_exp_avg_sqs,
                      const TensorList& state_steps, const AdamArgs& a, const Tensor& grad_scale,
                      const Tensor& found_inf) {
  check_params(op, self);
  check_list(op, "grads", self, grads);
  check_list(op, "exp_avgs", self, exp_avgs);
  check_list(op, "exp_avg_sqs", self, exp_avg_sqs);
  if (a.amsgrad) check_list(op, "max_exp_avg_sqs", self, max_exp_avg_sqs);
  EMBER_CHECK(state_steps.size() == self.size(), op, ": expected state_steps to have ", self.size(),
              " tensors, got ", state_steps.size());
  if (skip_step(found_inf)) return self;
  double scale = 0;
  if (grad_scale.defined()) scale = grad_scale.item().to_double();
  for (size_t i = 0; i < self.size(); ++i) {
    const double step = state_steps[i].item().to_double();
    const Tensor& mx = a.amsgrad ? max_exp_avg_sqs[i] : Tensor();
    if (self[i].dtype() == ScalarType::Float32)
      adam_one<float>(self[i], grads[i], exp_avgs[i], exp_avg_sqs[i], mx, step, a,
                      grad_scale.defined() ? &scale : nullptr);
    else
      adam_one<double>(self[i], grads[i], exp_avgs[i], exp_avg_sqs[i], mx, step, a,
                       grad_scale.defined() ? &scale : nullptr);
    for (const Tensor* t : {&self[i], &exp_avgs[i], &exp_avg_sqs[i]}) t->bump_version();
    if (a.amsgrad) max_exp_avg_sqs[i].bump_version();
    if (grad_scale.defined()) grads[i].bump_version();
  }
  return self;
}

template <class T>
void sgd_one(const Tensor& param, const Tensor& grad, const Tensor& buf_t, double weight_decay, double momentum,
             double lr, double dampening, bool nesterov, bool maximize, bool first, const double* grad_scale) {
  T* p = param.data<T>();
  T* g = grad.data<T>();
  T* buf = momentum != 0 ? buf_t.data<T>() : nullptr;
  const T wd = T(weight_decay), mu = T(momentum), keep = T(1 - dampening), step = T(-lr);
  parallel_for(0, param.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      T gi = g[i];
      if (grad_scale) {
        gi = gi / T(*grad_scale);
        g[i] = gi;
      }
      if (maximize) gi = -gi;
      if (weight_decay != 0) gi = gi + wd * p[i];
      if (buf) {
        T b = first ? gi : buf[i] * mu;
        if (!first) b = b + keep * gi;
        buf[i] = b;
        gi = nesterov ? gi + mu * b : b;
      }
      p[i] = p[i] + step * gi;
    }
  });
}

}  // namespace

TensorList _fused_adam_(const TensorList& self, const TensorList& grads, const TensorList& exp_avgs,
                        const TensorList& exp_avg_sqs, const TensorList& max_exp_avg_sqs,
                        const TensorList& state_steps, double lr, double beta1, double beta2, double weight_decay,
                        double eps, bool amsgrad, bool maximize, const Tensor& grad_scale,
                        const Tensor& found_inf) {
  return fused_adam("_fused_adam_", self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                    AdamArgs{lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, false}, grad_scale, found_inf);
}

TensorList _fused_adamw_(const TensorList& self, const TensorList& grads, const TensorList& exp_avgs,
                         const TensorList& exp_avg_sqs, const TensorList& max_exp_avg_sqs,
                         const TensorList& state_steps, double lr, double beta1, double beta2, double weight_decay,
                         double eps, bool amsgrad, bool maximize, const Tensor& grad_scale,
                         const Tensor& found_inf) {
  return fused_adam("_fused_adamw_", self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                    AdamArgs{lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, true}, grad_scale, found_inf);
}

TensorList _fused_sgd_(const TensorList& self, const TensorList& grads, const TensorList& momentum_buffer_list,
                       double weight_decay, double momentum, double lr, double dampening, bool nesterov,
                       bool maximize, bool is_first_step, const Tensor& grad_scale, const Tensor& found_inf) {
  const char* op = "_fused_sgd_";
  check_params(op, self);
  check_list(op, "grads", self, grads);
  if (momentum != 0) check_list(op, "momentum_buffer_list", self, momentum_buffer_list);
  if (skip_step(found_inf)) return self;
  double scale = 0;
  if (grad_scale.defined()) scale = grad_scale.item().to_double();
  const double* sp = grad_scale.defined() ? &scale : nullptr;
  for (size_t i = 0; i < self.size(); ++i) {
    const Tensor& buf = momentum != 0 ? momentum_buffer_list[i] : Tensor();
    if (self[i].dtype() == ScalarType::Float32)
      sgd_one<float>(self[i], grads[i], buf, weight_decay, momentum, lr, dampening, nesterov, maximize,
                     is_first_step, sp);
    else
      sgd_one<double>(self[i], grads[i], buf, weight_decay, momentum, lr, dampening, nesterov, maximize,
                      is_first_step, sp);
    self[i].bump_version();
    if (momentum != 0) buf.bump_version();
    if (sp) grads[i].bump_version();
  }
  return self;
}

}  // namespace ember
