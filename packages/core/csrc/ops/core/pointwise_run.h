// One pointwise kernel over an elementwise iteration, for op bodies that pick their kernel or
// check their arguments first (pointwise_handwritten.cpp, the pointwise losses).
#pragma once
#include <initializer_list>

#include "core/tensor.h"
#include "iter/elementwise_iter.h"
#include "kernels/backend.h"

namespace ember {

// A kernel with its ops.yaml name: the complex table (backend.h, ComplexKernels) is keyed by it.
// Picked from the iteration's device, not the first operand's (2 ** x with x on a GPU).
struct NamedKernel {
  const char* name;
  PointwiseKernel PointwiseKernels::* fn;
};
#define EMBER_KERNEL(field) (::ember::NamedKernel{#field, &::ember::PointwiseKernels::field})

// The inputs are borrowed: each is an argument of the calling op. With `out` defined the result
// is written there (in place when `inplace`: out is input 0) and out is returned.
Tensor run_pointwise(const char* name, NamedKernel k, DtypeRule rule, const Tensor& out, bool inplace,
                     std::initializer_list<const Tensor*> inputs, std::initializer_list<Scalar> params = {});

// aten's default iterator config promotes nothing: every operand must have self's dtype
// ("Found dtype Long but expected Float"), checked after the shapes.
void same_dtype_as_self(const Tensor& self, std::initializer_list<const Tensor*> others);

}  // namespace ember
