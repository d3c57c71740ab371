// The CPU samplers (kernels/backend.h, RandomKernels): each writes n contiguous elements of dtype
// dt, drawing from `gen` (null: the default generator) as PyTorch's CPU kernel does.
#pragma once
#include <cstdint>

#include "core/generator.h"
#include "core/scalar_type.h"
#include "kernels/sampling_args.h"

namespace ember::sampling {

// continuous.cpp
void uniform(ScalarType dt, void* out, int64_t n, double from, double to, Generator* gen);
void normal(ScalarType dt, void* out, int64_t n, bool blocks, double mean, double std, Generator* gen);
void exponential(ScalarType dt, void* out, int64_t n, double lambd, Generator* gen);
void cauchy(ScalarType dt, void* out, int64_t n, double median, double sigma, Generator* gen);
void log_normal(ScalarType dt, void* out, int64_t n, double mean, double std, Generator* gen);
void geometric(ScalarType dt, void* out, int64_t n, double p, Generator* gen);
void bernoulli(ScalarType dt, void* out, int64_t n, double p, Generator* gen);
void bernoulli_tensor(ScalarType dt, void* out, int64_t n, const void* p, bool p_double, Generator* gen);

// discrete.cpp
void random_bits(ScalarType dt, void* out, int64_t n, Generator* gen);
void random_range(ScalarType dt, void* out, int64_t n, uint64_t range, int64_t base, Generator* gen);
void random_full64(ScalarType dt, void* out, int64_t n, Generator* gen);
void randperm(ScalarType dt, void* out, int64_t n, Generator* gen);
void multinomial_replace(ScalarType dt, const MultinomialProbs& p, int64_t ns, int64_t* out, Generator* gen);
void multinomial_race(ScalarType dt, const MultinomialProbs& p, const void* q, int64_t qs0, int64_t qs1, int64_t ns,
                      int64_t* out);
void poisson(ScalarType dt, void* out, const double* rates, int64_t n, Generator* gen);

// dropout.cpp
void dropout(ScalarType dt, const void* x, void* out, bool* mask, int64_t n, double p);

}  // namespace ember::sampling
