// Checks every in-place op runs before writing (autograd adds its leaf and
// view rules here in the autograd issue).
#pragma once
#include "../core/tensor.h"

namespace ember {

inline void check_inplace(const Tensor& self, const char* name) {
  (void)name;
  EMBER_CHECK(!self.impl()->is_inference,
              "Inplace update to inference tensor outside InferenceMode is not allowed.");
}

// Factories with requires_grad=True.
void apply_requires_grad(const Tensor& t, bool requires_grad);

}  // namespace ember
