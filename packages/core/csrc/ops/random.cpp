// A process-wide MT19937 stream for rand/randn. Deterministic given
// manual_seed; the random-numbers issue replaces this with ember.Generator.
#include <cmath>
#include <mutex>
#include <random>

#include "checks.h"
#include "ops.h"

namespace ember {

namespace {
std::mutex g_mu;
std::mt19937_64& engine() {
  static std::mt19937_64 e(67280421310721ULL);
  return e;
}
double uniform01(std::mt19937_64& e) { return static_cast<double>(e() >> 11) * (1.0 / 9007199254740992.0); }
}  // namespace

void manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(g_mu);
  engine().seed(seed);
}

Tensor rand(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  ScalarType dt = dtype ? *dtype : default_dtype();
  EMBER_CHECK_NOTIMPL(is_floating(dt), "\"check_uniform_bounds\" not implemented for '", legacy_name(dt), "'");
  check_device_available(device ? *device : cpu_device());
  Tensor t = empty(size, dt);
  std::lock_guard<std::mutex> g(g_mu);
  EMBER_DISPATCH_FLOAT(dt, "uniform_", [&] {
    scalar_t* p = t.data<scalar_t>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<scalar_t>(uniform01(engine()));
  });
  return t;
}

Tensor randn(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  ScalarType dt = dtype ? *dtype : default_dtype();
  EMBER_CHECK_NOTIMPL(is_floating(dt), "\"normal_kernel_cpu\" not implemented for '", legacy_name(dt), "'");
  check_device_available(device ? *device : cpu_device());
  Tensor t = empty(size, dt);
  std::lock_guard<std::mutex> g(g_mu);
  EMBER_DISPATCH_FLOAT(dt, "normal_", [&] {
    scalar_t* p = t.data<scalar_t>();
    int64_t n = t.numel();
    for (int64_t i = 0; i < n; i += 2) {  // Box-Muller: two normals per pair of uniforms
      double u1 = 1.0 - uniform01(engine()), u2 = uniform01(engine());
      double r = std::sqrt(-2.0 * std::log(u1));
      p[i] = static_cast<scalar_t>(r * std::cos(2 * M_PI * u2));
      if (i + 1 < n) p[i + 1] = static_cast<scalar_t>(r * std::sin(2 * M_PI * u2));
    }
  });
  return t;
}

}  // namespace ember
