// Argument checks shared by op bodies: in-place targets (inference tensors, leaves that require
// grad), alpha, integer divisors, the polynomial degree bound.
#pragma once
#include <string>

#include "core/grad_mode.h"
#include "core/tensor.h"

namespace ember {

// Errors for in-place ops on leaves that require grad (and views of them), while grad mode is on.
// op_requires_grad: the caller (an autograd wrapper) records the op, so a restricted view is refused
// even when only another operand requires grad.
void check_inplace(const Tensor& self, bool op_requires_grad = false);
// PyTorch's refusals of in-place ops on views made in no_grad mode or by split/chunk/unbind (the
// view's creation_meta), while grad mode is on and the view or the op requires grad.
void check_view_inplace(const Tensor& self, bool op_requires_grad);
// "Output 1 of Split": a view's grad_fn as PyTorch names it in those errors. The autograd layer,
// which knows the node types, sets it.
using ViewLabel = std::string (*)(const Tensor&);
void set_view_label(ViewLabel fn);

inline void check_inplace(const Tensor& self, const char* name) {
  (void)name;
  EMBER_CHECK(!self.impl()->is_inference || InferenceMode::is_enabled(),
              "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
              "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
              "details.");
  check_inplace(self);  // autograd: leaves (and views of leaves) that require grad
}

// PyTorch's rules for the alpha of add/sub.
void check_alpha(ScalarType result, const Scalar& alpha);
// Integer division by zero raises before any kernel runs (kernels never throw).
void check_int_divisor(ScalarType compute, const Tensor& divisor);
// aten's dtype dispatch of a kernel built without float16/bfloat16 (an ops.yaml kernel_checks
// entry, so after the iterator's errors): NotImplementedError for those; true otherwise.
bool no_half_kernel(const char* kernel, ScalarType compute);
// Laguerre and Legendre: RuntimeError for a degree in (2^20, 2^63) (see checks.cpp); true otherwise.
bool poly_degree_bounded(const char* op, const Tensor& n);

// aten's check_dim_size: t has `dim` dims and t.size(dim_size) == size. aten builds its message
// with t.size(dim_size), so a tensor without that dim raises IndexError (a 0-d one: "Dimension
// specified as 0 but tensor has no dimensions") before the RuntimeError.
inline void check_dim_size(const Tensor& t, int64_t dim, int64_t dim_size, int64_t size) {
  const int64_t got = t.size(dim_size);
  EMBER_CHECK(t.dim() == dim && got == size, "Expected a tensor of dimension ", dim, " and tensor.size[", dim_size,
              "] == ", size, " but got: dimension ", t.dim(), " and tensor.size[", dim_size, "] = ", got);
}

// uint16/32/64 reach few of aten's kernels: an op whose kernel has no case for them raises
// its NotImplementedError here, where aten dispatches (ember's byte-moving kernels would not).
inline void no_shell_unsigned(const char* kernel, ScalarType t) {
  if (is_shell_unsigned(t)) dtype_not_implemented(kernel, t);
}

// Factories with requires_grad=True.
void apply_requires_grad(const Tensor& t, bool requires_grad);

// aten's toString of a CPU tensor type in argument errors: the THTensor name where one existed
// (torch.FloatTensor), else CPU<Name>Type (CPUComplexDoubleType, CPUBoolType, CPUBFloat16Type).
std::string cpu_type_string(ScalarType t);

}  // namespace ember
