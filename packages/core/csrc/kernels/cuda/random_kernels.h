// RandomKernels' CUDA entries (kernels/cuda/random_kernels.cu): n contiguous elements of dtype dt
// on the device, drawn from the CUDA generator `gen` (null: the default generator of the device
// `out` lives on) by Philox from (seed, offset, element index). bernoulli_tensor's p,
// poisson's rates and dropout's x, out and mask are device memory too. multinomial has no entry
// (the op composes it from these and the device's sort and search).
#pragma once
#include <cstdint>

#include "core/generator.h"
#include "core/scalar_type.h"

namespace ember::cuda {

void uniform(ScalarType dt, void* out, int64_t n, double from, double to, Generator* gen);
void normal(ScalarType dt, void* out, int64_t n, bool blocks, double mean, double std, Generator* gen);
void exponential(ScalarType dt, void* out, int64_t n, double lambd, Generator* gen);
void cauchy(ScalarType dt, void* out, int64_t n, double median, double sigma, Generator* gen);
void log_normal(ScalarType dt, void* out, int64_t n, double mean, double std, Generator* gen);
void geometric(ScalarType dt, void* out, int64_t n, double p, Generator* gen);
void bernoulli(ScalarType dt, void* out, int64_t n, double p, Generator* gen);
void bernoulli_tensor(ScalarType dt, void* out, int64_t n, const void* p, bool p_double, Generator* gen);
void random_bits(ScalarType dt, void* out, int64_t n, Generator* gen);
void random_range(ScalarType dt, void* out, int64_t n, uint64_t range, int64_t base, Generator* gen);
void random_full64(ScalarType dt, void* out, int64_t n, Generator* gen);
void randperm(ScalarType dt, void* out, int64_t n, Generator* gen);
void poisson(ScalarType dt, void* out, const double* rates, int64_t n, Generator* gen);
void dropout(ScalarType dt, const void* x, void* out, bool* mask, int64_t n, double p);

}  // namespace ember::cuda
