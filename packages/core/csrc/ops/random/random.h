// Random sampling ops: declared in ops/random.yaml (their C++ forms in the generated ops.h,
// `generator == nullptr` meaning the default generator). Each op follows PyTorch's CPU kernels
// draw for draw, so seeded streams match PyTorch's; see Note [RNG streams] in random.cpp.
// Below: the shared forms the generated ones call, with `out` (may be null) resized and
// written as out= does.
#pragma once
#include <optional>

#include "core/generator.h"
#include "core/tensor.h"
#include "ops.h"

namespace ember {

Tensor randperm(int64_t n, ScalarType dtype, Device device, Generator* gen, const Tensor* out);
Tensor bernoulli(const Tensor& probs, Generator* gen, const Tensor* out);
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, Generator* gen, const Tensor* out);
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen, const Tensor* out);
Tensor normal(const Tensor& mean, double std, Generator* gen, const Tensor* out);
Tensor normal(double mean, const Tensor& std, Generator* gen, const Tensor* out);

}  // namespace ember
