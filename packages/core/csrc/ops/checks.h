// Argument checks shared by op bodies: in-place targets (autograd adds its
// leaf and view rules here), alpha, integer divisors.
#pragma once
#include "../autograd/node.h"
#include "../core/tensor.h"

namespace ember {

inline void check_inplace(const Tensor& self, const char* name) {
  (void)name;
  EMBER_CHECK(!self.impl()->is_inference,
              "Inplace update to inference tensor outside InferenceMode is not allowed.");
  check_inplace(self);  // autograd: leaves (and views of leaves) that require grad
}

// PyTorch's rules for the alpha of add/sub.
void check_alpha(ScalarType result, const Scalar& alpha);
// Integer division by zero raises before any kernel runs (kernels never throw).
void check_int_divisor(ScalarType compute, const Tensor& divisor);

// Factories with requires_grad=True.
void apply_requires_grad(const Tensor& t, bool requires_grad);

}  // namespace ember
