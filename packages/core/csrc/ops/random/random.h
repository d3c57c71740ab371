// Random sampling ops (hand-bound in python/py_random.cpp, not in ops.yaml:
// every one takes a Generator, which the generated layer does not know).
// `gen == nullptr` means the default generator. Each op follows PyTorch's CPU
// kernels draw for draw, so seeded streams match PyTorch's; see Note [RNG streams]
// in random.cpp.
#pragma once
#include <optional>

#include "core/generator.h"
#include "core/tensor.h"

namespace ember {

// ---- in place (Tensor methods) ----
Tensor uniform_(const Tensor& self, double from, double to, Generator* gen);
Tensor normal_(const Tensor& self, double mean, double std, Generator* gen);
Tensor exponential_(const Tensor& self, double lambd, Generator* gen);
Tensor cauchy_(const Tensor& self, double median, double sigma, Generator* gen);
Tensor log_normal_(const Tensor& self, double mean, double std, Generator* gen);
Tensor geometric_(const Tensor& self, double p, Generator* gen);
Tensor bernoulli_(const Tensor& self, double p, Generator* gen);
Tensor bernoulli_(const Tensor& self, const Tensor& p, Generator* gen);
// random_(): [0, 2^mantissa] for floats, [0, max] for integers; random_(from, to): [from, to);
// random_(from, None): [from, max]. PyTorch's bounds checks and warnings.
Tensor random_(const Tensor& self, Generator* gen);
Tensor random_(const Tensor& self, int64_t from, std::optional<int64_t> to, Generator* gen);

// ---- out of place ----
// `out` (may be null) is resized and written, as out= does.
Tensor randperm(int64_t n, ScalarType dtype, Generator* gen, const Tensor* out);
Tensor bernoulli(const Tensor& probs, Generator* gen, const Tensor* out);
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, Generator* gen, const Tensor* out);
Tensor poisson(const Tensor& rates, Generator* gen);
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen, const Tensor* out);
Tensor normal(const Tensor& mean, double std, Generator* gen, const Tensor* out);
Tensor normal(double mean, const Tensor& std, Generator* gen, const Tensor* out);

}  // namespace ember
