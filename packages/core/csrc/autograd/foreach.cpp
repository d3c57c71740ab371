// torch's multi-tensor `_foreach_*` ops: one call per optimizer step, a C++ loop over the
// tensor list. Each element goes through the autograd-aware single-tensor op (ember::ag::),
// so results are bit-identical to the per-parameter path, history is recorded when grad
// mode is on (PyTorch's foreach ops are differentiable too), and under no_grad the cost per
// tensor is one kernel launch with no Python in between. Large tensors are parallelised
// (and the GIL released) inside each kernel's parallel_for.
// It sits in the autograd layer, above the op bodies, because it calls the ember::ag:: ops.
#include <limits>
#include <string_view>

#include "autograd_ops.h"
#include "core/grad_mode.h"
#include "iter/elementwise_iter.h"
#include "ops.h"
#include "ops/core/checks.h"

namespace ember {

namespace {

void check_nonempty(const TensorList& a) { EMBER_CHECK(!a.empty(), "Tensor list must have at least one tensor."); }

void check_same_len(const TensorList& a, const TensorList& b) {
  EMBER_CHECK(a.size() == b.size(), "Tensor lists must have the same number of tensors, got ", a.size(), " and ",
              b.size());
}

template <class F>
TensorList map_each(const TensorList& self, F f) {
  check_nonempty(self);
  TensorList r;
  r.reserve(self.size());
  for (size_t i = 0; i < self.size(); ++i) r.push_back(f(i));
  return r;
}

template <class F>
TensorList map_each(const TensorList& self, const TensorList& other, F f) {
  check_nonempty(self);
  check_same_len(self, other);
  return map_each(self, f);
}

template <class F>
TensorList map_each(const TensorList& self, const TensorList& a, const TensorList& b, F f) {
  check_nonempty(self);
  check_same_len(self, a);
  check_same_len(self, b);
  return map_each(self, f);
}

// In-place max / min: maximum and minimum have no in-place kernel, so write through out= (same
// shape, read before write per element). Under grad mode the differentiable composite is used.
Tensor extreme_inplace(const Tensor& self, const Tensor& other, bool is_max) {
  // out= would resize the target; an in-place op may not (PyTorch's in-place broadcast rule).
  DimVector shape = broadcast_shapes(self.sizes(), other.sizes());
  EMBER_CHECK(self.sizes().equals(shape), "output with shape ", shape_str(self.sizes()),
              " doesn't match the broadcast shape ", shape_str(shape));
  if (GradMode::is_enabled() && (self.requires_grad() || other.requires_grad())) {
    check_cast(promote_types(self.dtype(), other.dtype()), self.dtype());
    return ag::copy_(self, is_max ? ag::maximum(self, other) : ag::minimum(self, other), false);
  }
  check_inplace(self, is_max ? "_foreach_maximum_" : "_foreach_minimum_");
  return is_max ? maximum_out(self, other, self) : minimum_out(self, other, self);
}

}  // namespace

// The Scalar forms are PyTorch's per-tensor `t.op(scalar)`: the number is wrapped beside each
// tensor (a uint64 number keeps an integer tensor's dtype, as in the single-tensor op).

// ---- add / sub ----
TensorList _foreach_add(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::add(self[i], wrap_number(scalar, self[i]), Scalar(int64_t(1))); });
}
TensorList _foreach_add(const TensorList& self, const TensorList& other, const Scalar& alpha) {
  return map_each(self, other, [&](size_t i) { return ag::add(self[i], other[i], alpha); });
}
TensorList _foreach_add_(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::add_(self[i], wrap_number(scalar, self[i]), Scalar(int64_t(1))); });
}
TensorList _foreach_add_(const TensorList& self, const TensorList& other, const Scalar& alpha) {
  return map_each(self, other, [&](size_t i) { return ag::add_(self[i], other[i], alpha); });
}
TensorList _foreach_sub(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::sub(self[i], wrap_number(scalar, self[i]), Scalar(int64_t(1))); });
}
TensorList _foreach_sub(const TensorList& self, const TensorList& other, const Scalar& alpha) {
  return map_each(self, other, [&](size_t i) { return ag::sub(self[i], other[i], alpha); });
}
TensorList _foreach_sub_(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::sub_(self[i], wrap_number(scalar, self[i]), Scalar(int64_t(1))); });
}
TensorList _foreach_sub_(const TensorList& self, const TensorList& other, const Scalar& alpha) {
  return map_each(self, other, [&](size_t i) { return ag::sub_(self[i], other[i], alpha); });
}

// ---- mul / div ----
TensorList _foreach_mul(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::mul(self[i], wrap_number(scalar, self[i])); });
}
TensorList _foreach_mul(const TensorList& self, const TensorList& other) {
  return map_each(self, other, [&](size_t i) { return ag::mul(self[i], other[i]); });
}
TensorList _foreach_mul_(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) {
    // aten's in-place foreach mul passes the number as the first operand, so a half type's kernel
    // reads it rounded to the dtype (the method and the out-of-place form keep it in op-math)
    const ScalarType dt = self[i].dtype();
    const bool reduced = dt == ScalarType::Float16 || dt == ScalarType::BFloat16;
    const Tensor number = wrap_number(scalar, self[i]);
    return ag::mul_(self[i], reduced && !scalar.is_complex() ? to_dtype(number, dt) : number);
  });
}
TensorList _foreach_mul_(const TensorList& self, const TensorList& other) {
  return map_each(self, other, [&](size_t i) { return ag::mul_(self[i], other[i]); });
}
TensorList _foreach_div(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::div(self[i], wrap_number(scalar, self[i]), std::nullopt); });
}
TensorList _foreach_div(const TensorList& self, const TensorList& other) {
  return map_each(self, other, [&](size_t i) { return ag::div(self[i], other[i], std::nullopt); });
}
TensorList _foreach_div_(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::div_(self[i], wrap_number(scalar, self[i]), std::nullopt); });
}
TensorList _foreach_div_(const TensorList& self, const TensorList& other) {
  return map_each(self, other, [&](size_t i) { return ag::div_(self[i], other[i], std::nullopt); });
}

// ---- maximum (the Scalar form is clamp_min, as in PyTorch) ----
TensorList _foreach_maximum(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::clamp_min(self[i], scalar); });
}
// aten's list forms run clamp_min.Tensor's / clamp_max.Tensor's kernel per pair, whose dispatch
// refuses complex by name
static void refuse_complex_pair(const Tensor& a, const Tensor& b, const char* kernel) {
  (void)broadcast_shapes(a.sizes(), b.sizes());  // its iterator's shape check comes first
  const ScalarType t = promote_types(a.dtype(), b.dtype());
  if (is_complex(t)) dtype_not_implemented(kernel, t);
}
TensorList _foreach_maximum(const TensorList& self, const TensorList& other) {
  return map_each(self, other, [&](size_t i) {
    refuse_complex_pair(self[i], other[i], "maximum_cpu");
    return ag::maximum(self[i], other[i]);
  });
}
TensorList _foreach_maximum_(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::clamp_min_(self[i], scalar); });
}
TensorList _foreach_maximum_(const TensorList& self, const TensorList& other) {
  return map_each(self, other, [&](size_t i) {
    refuse_complex_pair(self[i], other[i], "maximum_cpu");
    return extreme_inplace(self[i], other[i], true);
  });
}

// ---- addcmul / addcdiv ----
TensorList _foreach_addcmul(const TensorList& self, const TensorList& tensor1, const TensorList& tensor2,
                            const Scalar& value) {
  return map_each(self, tensor1, tensor2,
                  [&](size_t i) { return ag::addcmul(self[i], tensor1[i], tensor2[i], value); });
}
TensorList _foreach_addcmul_(const TensorList& self, const TensorList& tensor1, const TensorList& tensor2,
                             const Scalar& value) {
  return map_each(self, tensor1, tensor2,
                  [&](size_t i) { return ag::addcmul_(self[i], tensor1[i], tensor2[i], value); });
}
TensorList _foreach_addcdiv(const TensorList& self, const TensorList& tensor1, const TensorList& tensor2,
                            const Scalar& value) {
  return map_each(self, tensor1, tensor2,
                  [&](size_t i) { return ag::addcdiv(self[i], tensor1[i], tensor2[i], value); });
}
TensorList _foreach_addcdiv_(const TensorList& self, const TensorList& tensor1, const TensorList& tensor2,
                             const Scalar& value) {
  return map_each(self, tensor1, tensor2,
                  [&](size_t i) { return ag::addcdiv_(self[i], tensor1[i], tensor2[i], value); });
}

// ---- lerp ----
TensorList _foreach_lerp(const TensorList& self, const TensorList& tensors1, const Scalar& weight) {
  return map_each(self, tensors1,
                  [&](size_t i) { return ag::lerp(self[i], tensors1[i], wrap_number(weight, self[i])); });
}
TensorList _foreach_lerp(const TensorList& self, const TensorList& tensors1, const TensorList& weights) {
  return map_each(self, tensors1, weights, [&](size_t i) { return ag::lerp(self[i], tensors1[i], weights[i]); });
}
TensorList _foreach_lerp_(const TensorList& self, const TensorList& tensors1, const Scalar& weight) {
  return map_each(self, tensors1,
                  [&](size_t i) { return ag::lerp_(self[i], tensors1[i], wrap_number(weight, self[i])); });
}
TensorList _foreach_lerp_(const TensorList& self, const TensorList& tensors1, const TensorList& weights) {
  return map_each(self, tensors1, weights, [&](size_t i) { return ag::lerp_(self[i], tensors1[i], weights[i]); });
}

// ---- unary ----
TensorList _foreach_sqrt(const TensorList& self) {
  return map_each(self, [&](size_t i) { return ag::sqrt(self[i]); });
}
TensorList _foreach_sqrt_(const TensorList& self) {
  return map_each(self, [&](size_t i) { return ag::sqrt_(self[i]); });
}
TensorList _foreach_neg(const TensorList& self) {
  return map_each(self, [&](size_t i) { return ag::neg(self[i]); });
}
TensorList _foreach_neg_(const TensorList& self) {
  return map_each(self, [&](size_t i) { return ag::neg_(self[i]); });
}
TensorList _foreach_zero_(const TensorList& self) {
  return map_each(self, [&](size_t i) { return ag::zero_(self[i]); });
}
TensorList _foreach_copy_(const TensorList& self, const TensorList& src, bool non_blocking) {
  return map_each(self, src, [&](size_t i) { return ag::copy_(self[i], src[i], non_blocking); });
}

// ---- the other unary ops: each tensor's own op (its dtype rules and errors), in place or not ----
#define EMBER_FOREACH_UNARY(op)                                          \
  TensorList _foreach_##op(const TensorList& self) {                     \
    return map_each(self, [&](size_t i) { return ag::op(self[i]); });    \
  }                                                                      \
  TensorList _foreach_##op##_(const TensorList& self) {                  \
    return map_each(self, [&](size_t i) { return ag::op##_(self[i]); }); \
  }
EMBER_FOREACH_UNARY(abs)
EMBER_FOREACH_UNARY(acos)
EMBER_FOREACH_UNARY(asin)
EMBER_FOREACH_UNARY(atan)
EMBER_FOREACH_UNARY(ceil)
EMBER_FOREACH_UNARY(cos)
EMBER_FOREACH_UNARY(cosh)
EMBER_FOREACH_UNARY(erf)
EMBER_FOREACH_UNARY(erfc)
EMBER_FOREACH_UNARY(exp)
EMBER_FOREACH_UNARY(expm1)
EMBER_FOREACH_UNARY(floor)
EMBER_FOREACH_UNARY(frac)
EMBER_FOREACH_UNARY(lgamma)
EMBER_FOREACH_UNARY(log)
EMBER_FOREACH_UNARY(log10)
EMBER_FOREACH_UNARY(log1p)
EMBER_FOREACH_UNARY(log2)
EMBER_FOREACH_UNARY(reciprocal)
EMBER_FOREACH_UNARY(round)
EMBER_FOREACH_UNARY(sigmoid)
EMBER_FOREACH_UNARY(sign)
EMBER_FOREACH_UNARY(sin)
EMBER_FOREACH_UNARY(sinh)
EMBER_FOREACH_UNARY(tan)
EMBER_FOREACH_UNARY(tanh)
EMBER_FOREACH_UNARY(trunc)
#undef EMBER_FOREACH_UNARY

// ---- clamp_min / clamp_max / minimum / pow: a number, or a list of tensors ----
TensorList _foreach_clamp_min(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::clamp_min(self[i], scalar); });
}
TensorList _foreach_clamp_min_(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::clamp_min_(self[i], scalar); });
}
TensorList _foreach_clamp_max(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::clamp_max(self[i], scalar); });
}
TensorList _foreach_clamp_max_(const TensorList& self, const Scalar& scalar) {
  return map_each(self, [&](size_t i) { return ag::clamp_max_(self[i], scalar); });
}
// a list's clamp_min / clamp_max is the elementwise maximum / minimum (PyTorch's clamp.Tensor kernels)
TensorList _foreach_clamp_min(const TensorList& self, const TensorList& other) { return _foreach_maximum(self, other); }
TensorList _foreach_clamp_min_(const TensorList& self, const TensorList& other) {
  return _foreach_maximum_(self, other);
}
TensorList _foreach_minimum(const TensorList& self, const Scalar& scalar) { return _foreach_clamp_max(self, scalar); }
TensorList _foreach_minimum_(const TensorList& self, const Scalar& scalar) { return _foreach_clamp_max_(self, scalar); }
TensorList _foreach_minimum(const TensorList& self, const TensorList& other) {
  return map_each(self, other, [&](size_t i) {
    refuse_complex_pair(self[i], other[i], "minimum_cpu");
    return ag::minimum(self[i], other[i]);
  });
}
TensorList _foreach_minimum_(const TensorList& self, const TensorList& other) {
  return map_each(self, other, [&](size_t i) {
    refuse_complex_pair(self[i], other[i], "minimum_cpu");
    return extreme_inplace(self[i], other[i], false);
  });
}
TensorList _foreach_clamp_max(const TensorList& self, const TensorList& other) { return _foreach_minimum(self, other); }
TensorList _foreach_clamp_max_(const TensorList& self, const TensorList& other) {
  return _foreach_minimum_(self, other);
}
TensorList _foreach_pow(const TensorList& self, const Scalar& exponent) {
  return map_each(self, [&](size_t i) { return ag::pow(self[i], wrap_number(exponent, self[i])); });
}
TensorList _foreach_pow_(const TensorList& self, const Scalar& exponent) {
  return map_each(self, [&](size_t i) { return ag::pow_(self[i], wrap_number(exponent, self[i])); });
}
TensorList _foreach_pow(const TensorList& self, const TensorList& exponent) {
  return map_each(self, exponent, [&](size_t i) { return ag::pow(self[i], exponent[i]); });
}
TensorList _foreach_pow_(const TensorList& self, const TensorList& exponent) {
  return map_each(self, exponent, [&](size_t i) { return ag::pow_(self[i], exponent[i]); });
}
TensorList _foreach_max(const TensorList& self) {
  return map_each(self, [&](size_t i) {
    EMBER_CHECK(self[i].numel() > 0,
                "_foreach_max cannot compute the maximum of an empty tensor; max over zero elements is undefined.");
    return ag::max(self[i]);
  });
}

// ---- norm: one 0-d result per tensor (clip_grad_norm_'s building block) ----
TensorList _foreach_norm(const TensorList& self, const Scalar& ord, std::optional<ScalarType> dtype) {
  if (ord.is_uint64()) (void)ord.checked_real<int64_t>();  // aten reads an integral ord as int64_t: its overflow error
  const bool inf = ord.to_double() == std::numeric_limits<double>::infinity();
  return map_each(self, [&](size_t i) {
    // PyTorch's own check (its -inf goes on to vector_norm's message).
    EMBER_CHECK(!(inf && self[i].numel() == 0),
                "_foreach_norm cannot compute the infinity norm on an empty tensor because the operation does not "
                "have an identity");
    return ag::vector_norm(self[i], ord, std::nullopt, false, dtype);
  });
}

}  // namespace ember
