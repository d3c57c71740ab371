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

// A number written into a tensor of dtype dt (fill_, masked_fill, clamp bounds) must fit it:
// PyTorch's "value cannot be converted to type int8_t without overflow" (copy.cpp).
void check_fits(const Scalar& v, ScalarType dt);

// Factories with requires_grad=True.
void apply_requires_grad(const Tensor& t, bool requires_grad);

}  // namespace ember
