// The random ops as ops.yaml declares them (ops/random.yaml): factories, *_like forms and
// out= variants, each one allocation (or resize of out=) and then a sampler of random.cpp /
// random_int.cpp / random_sample.cpp. The generated bindings check layout, pin_memory, out=
// against dtype= and apply requires_grad.
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/random/random.h"

namespace ember {

namespace {

// A factory's result: a new tensor (dtype= or the op's default), or out= resized to `size`.
Tensor factory_result(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device,
                      ScalarType default_dt, const Tensor* out) {
  check_device_available(device ? *device : cpu_device());
  if (out) return resize_out(*out, size, false);  // a factory: aten's silent resize_
  return empty(size, dtype ? *dtype : default_dt, device ? *device : cpu_device());
}

void check_std(double std) { EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std); }

}  // namespace

// ---- factories ----

Tensor rand(IntArrayRef size, Generator* gen, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return uniform_(factory_result(size, dtype, device, default_dtype(), nullptr), 0, 1, gen);
}
Tensor rand_out(IntArrayRef size, Generator* gen, std::optional<ScalarType> dtype, std::optional<Device> device,
                const Tensor& out) {
  return uniform_(factory_result(size, dtype, device, default_dtype(), &out), 0, 1, gen);
}
Tensor randn(IntArrayRef size, Generator* gen, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return normal_(factory_result(size, dtype, device, default_dtype(), nullptr), 0, 1, gen);
}
Tensor randn_out(IntArrayRef size, Generator* gen, std::optional<ScalarType> dtype, std::optional<Device> device,
                 const Tensor& out) {
  return normal_(factory_result(size, dtype, device, default_dtype(), &out), 0, 1, gen);
}
Tensor randint(int64_t high, IntArrayRef size, Generator* gen, std::optional<ScalarType> dtype,
               std::optional<Device> device) {
  return randint(0, high, size, gen, dtype, device);
}
Tensor randint_out(int64_t high, IntArrayRef size, Generator* gen, std::optional<ScalarType> dtype,
                   std::optional<Device> device, const Tensor& out) {
  return randint_out(0, high, size, gen, dtype, device, out);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef size, Generator* gen, std::optional<ScalarType> dtype,
               std::optional<Device> device) {
  return random_(factory_result(size, dtype, device, ScalarType::Int64, nullptr), low, high, gen);
}
Tensor randint_out(int64_t low, int64_t high, IntArrayRef size, Generator* gen, std::optional<ScalarType> dtype,
                   std::optional<Device> device, const Tensor& out) {
  return random_(factory_result(size, dtype, device, ScalarType::Int64, &out), low, high, gen);
}
Tensor randperm(int64_t n, Generator* gen, std::optional<ScalarType> dtype, std::optional<Device> device) {
  check_device_available(device ? *device : cpu_device());
  return randperm(n, dtype ? *dtype : ScalarType::Int64, device ? *device : cpu_device(), gen, nullptr);
}
Tensor randperm_out(int64_t n, Generator* gen, std::optional<ScalarType>, std::optional<Device> device,
                    const Tensor& out) {
  check_device_available(device ? *device : cpu_device());
  return randperm(n, out.dtype(), out.device(), gen, &out);
}
Tensor normal(double mean, double std, IntArrayRef size, Generator* gen, std::optional<ScalarType> dtype,
              std::optional<Device> device) {
  check_std(std);
  return normal_(factory_result(size, dtype, device, default_dtype(), nullptr), mean, std, gen);
}
Tensor normal_out(double mean, double std, IntArrayRef size, Generator* gen, std::optional<ScalarType> dtype,
                  std::optional<Device> device, const Tensor& out) {
  check_std(std);
  return normal_(factory_result(size, dtype, device, default_dtype(), &out), mean, std, gen);
}

// ---- *_like ----

Tensor rand_like(const Tensor& input, Generator* gen, std::optional<ScalarType> dtype, std::optional<Device> device,
                 std::optional<MemoryFormat> memory_format) {
  return uniform_(empty_like(input, dtype, device, memory_format), 0, 1, gen);
}
Tensor randn_like(const Tensor& input, Generator* gen, std::optional<ScalarType> dtype, std::optional<Device> device,
                  std::optional<MemoryFormat> memory_format) {
  return normal_(empty_like(input, dtype, device, memory_format), 0, 1, gen);
}
Tensor randint_like(const Tensor& input, int64_t high, Generator* gen, std::optional<ScalarType> dtype,
                    std::optional<Device> device, std::optional<MemoryFormat> memory_format) {
  return randint_like(input, 0, high, gen, dtype, device, memory_format);
}
Tensor randint_like(const Tensor& input, int64_t low, int64_t high, Generator* gen, std::optional<ScalarType> dtype,
                    std::optional<Device> device, std::optional<MemoryFormat> memory_format) {
  return random_(empty_like(input, dtype, device, memory_format), low, high, gen);
}

// ---- tensor-parameter distributions ----

Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen) { return normal(mean, std, gen, nullptr); }
Tensor normal_out(const Tensor& mean, const Tensor& std, Generator* gen, const Tensor& out) {
  return normal(mean, std, gen, &out);
}
Tensor normal(const Tensor& mean, double std, Generator* gen) { return normal(mean, std, gen, nullptr); }
Tensor normal_out(const Tensor& mean, double std, Generator* gen, const Tensor& out) {
  return normal(mean, std, gen, &out);
}
Tensor normal(double mean, const Tensor& std, Generator* gen) { return normal(mean, std, gen, nullptr); }
Tensor normal_out(double mean, const Tensor& std, Generator* gen, const Tensor& out) {
  return normal(mean, std, gen, &out);
}
Tensor bernoulli(const Tensor& input, Generator* gen) { return bernoulli(input, gen, nullptr); }
Tensor bernoulli_out(const Tensor& input, Generator* gen, const Tensor& out) { return bernoulli(input, gen, &out); }
Tensor bernoulli(const Tensor& input, double p, Generator* gen) {
  return bernoulli_(empty(input.sizes(), input.dtype(), input.device()), p, gen);
}
Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement, Generator* gen) {
  return multinomial(input, num_samples, replacement, gen, nullptr);
}
Tensor multinomial_out(const Tensor& input, int64_t num_samples, bool replacement, Generator* gen, const Tensor& out) {
  return multinomial(input, num_samples, replacement, gen, &out);
}

// random_(to): [0, to)
Tensor random_(const Tensor& self, int64_t to, Generator* gen) { return random_(self, 0, to, gen); }

}  // namespace ember
