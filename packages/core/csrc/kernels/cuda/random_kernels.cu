// The samplers on the GPU (kernels/backend.h, RandomKernels). A draw takes the CUDA generator's
// seed and current Philox offset and moves the offset on by 4 (one Philox block per element);
// element i then reads the block at counter (i, offset / 4) (kernels/cuda/philox.cuh), so the
// numbers depend on the seed, the offset and i, not on the launch shape or the device. Each
// transform is PyTorch's for the distribution; the streams are not PyTorch's (nor the CPU's).
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <type_traits>
#include <vector>

#include "kernels/cuda/device_scratch.h"
#include "kernels/cuda/philox.cuh"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/cuda/random_kernels.h"
#include "kernels/device_transfer.h"

namespace ember::cuda {

namespace {

constexpr double kPi = 3.14159265358979323846;

// One draw's key and counter: the generator's seed and its offset in Philox blocks.
struct Draw {
  uint64_t seed;
  uint64_t block;
};

// Takes `blocks` blocks per element from `gen` (null: device's default generator), under its lock.
Draw reserve(Generator* gen, int device, uint64_t blocks = 1) {
  Generator& g = gen ? *gen : cuda_default_generator(device);
  EMBER_CHECK(g.is_cuda(), "Expected a 'cuda' device type for generator but found 'cpu'");
  std::lock_guard<std::mutex> lock(g.mutex);
  const uint64_t seed = g.initial_seed();
  return {seed, g.philox_advance(4 * blocks) / 4};
}

// Results written as PyTorch's samplers write them (kernels/random_units.h's from_double /
// from_int64, for the device): integers truncate (out of range: INT64_MIN, as x86 does), half
// types round through float.
template <class T>
__device__ T out_of_double(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    const bool in_range = v >= -9223372036854775808.0 && v < 9223372036854775808.0;
    return static_cast<T>(in_range ? static_cast<int64_t>(v) : INT64_MIN);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return static_cast<T>(v);
  } else {
    return T(static_cast<float>(v));
  }
}
template <class T>
__device__ T out_of_int64(int64_t v) {
  if constexpr (std::is_same_v<T, bool>) return v != 0;
  else if constexpr (std::is_integral_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double>)
    return static_cast<T>(v);
  else return T(static_cast<float>(v));
}

__device__ inline double unit_double(const PhiloxWords& r) { return unit_f64(word64(r.w[0], r.w[1])); }

// ---- the element transforms: f(words, i) -> the value of element i ----

// from + u * (to - from); a value that rounds up to `to` becomes `from` (the CPU kernel's rule).
template <class T>
struct Uniform {
  using A = opmath_t<T>;
  A from, range, to_rounded;
  __device__ T operator()(const PhiloxWords& r, int64_t) const {
    A u;
    if constexpr (std::is_same_v<A, double>) u = unit_double(r);
    else u = unit_f32(r.w[0]);
    const T v = static_cast<T>(u * range + from);
    return static_cast<A>(v) == to_rounded ? static_cast<T>(from) : v;
  }
};

// Box-Muller's cosine half on two uniforms (1 - u1 in (0, 1], so the log is finite).
template <class T>
struct Normal {
  using A = opmath_t<T>;
  A mean, std;
  __device__ T operator()(const PhiloxWords& r, int64_t) const {
    if constexpr (std::is_same_v<A, double>) {
      const double u1 = unit_double(r), u2 = unit_f64(word64(r.w[2], r.w[3]));
      const double z = ::sqrt(-2.0 * ::log1p(-u1)) * ::cos(2.0 * kPi * u2);
      return static_cast<T>(z * std + mean);
    } else {
      const float u1 = unit_f32(r.w[0]), u2 = unit_f32(r.w[1]);
      const float z = ::sqrtf(-2.0f * ::log1pf(-u1)) * ::cosf(2.0f * static_cast<float>(kPi) * u2);
      return static_cast<T>(z * std + mean);
    }
  }
};

// The transforms the CPU kernels compute in double from one 64-bit uniform (log_normal: from a
// double normal).
enum class DoubleMapKind { Exponential, Cauchy, LogNormal, Geometric };
template <class T>
struct DoubleMap {
  DoubleMapKind kind;
  double a, b;
  __device__ T operator()(const PhiloxWords& r, int64_t) const {
    const double u = unit_double(r);
    double v;
    switch (kind) {
      case DoubleMapKind::Exponential:  // a = -1 / lambda
        v = a * ::log1p(-u);
        break;
      case DoubleMapKind::Cauchy:  // a = sigma, b = median
        v = b + a * ::tan(kPi * (u - 0.5));
        break;
      case DoubleMapKind::LogNormal: {  // a = mean, b = std
        const double u2 = unit_f64(word64(r.w[2], r.w[3]));
        v = ::exp((::sqrt(-2.0 * ::log1p(-u)) * ::cos(2.0 * kPi * u2)) * b + a);
        break;
      }
      default: {  // Geometric, a = log1p(-p): an open-interval uniform keeps every sample >= 1
        const double open = (static_cast<double>(word64(r.w[0], r.w[1]) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
        v = ::ceil(::log(open) / a);
        break;
      }
    }
    return out_of_double<T>(v);
  }
};

template <class T>
struct Bernoulli {
  double p;
  __device__ T operator()(const PhiloxWords& r, int64_t) const { return out_of_int64<T>(unit_double(r) < p); }
};

// p per element (float for the narrow float dtypes, double for double), as the CPU kernel compares.
template <class T, class P>
struct BernoulliTensor {
  const P* p;
  __device__ T operator()(const PhiloxWords& r, int64_t i) const {
    if constexpr (std::is_same_v<P, double>) return out_of_int64<T>(unit_double(r) < p[i]);
    else return out_of_int64<T>(unit_f32(r.w[0]) < p[i]);
  }
};

// random_() with no bounds: [0, 2^digits] for floats, [0, max] for integers (64-bit words for
// int64 and double, as the CPU kernel draws them).
template <class T>
struct RandomBits {
  uint64_t mod;
  __device__ T operator()(const PhiloxWords& r, int64_t) const {
    if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>)
      return static_cast<T>(word64(r.w[0], r.w[1]) % mod);
    else return out_of_int64<T>(static_cast<int64_t>(r.w[0] % mod));
  }
};

// [base, base + range): a 32-bit word below 2^28 (PyTorch's allowance for modulo skew), else 64.
template <class T>
struct RandomRange {
  uint64_t range;
  uint64_t base;
  __device__ T operator()(const PhiloxWords& r, int64_t) const {
    const uint64_t w = range >= (uint64_t(1) << 28) ? word64(r.w[0], r.w[1]) : r.w[0];
    return out_of_int64<T>(static_cast<int64_t>(w % range + base));
  }
};

template <class T>
struct Full64 {
  __device__ T operator()(const PhiloxWords& r, int64_t) const {
    return out_of_int64<T>(static_cast<int64_t>(word64(r.w[0], r.w[1])));
  }
};

// Poisson(rate[i]) as the CPU's poisson_sample draws it (PyTorch's algorithm: multiplying
// uniforms below 10, else Hormann's transformed rejection), on element i's own run of Philox
// blocks, two doubles each: kPoissonBlocks reserved per draw; a longer run reads on into blocks
// later draws take, as PyTorch's CUDA sampler does past the offset it reserves.
constexpr uint64_t kPoissonBlocks = 16;
template <class T>
struct Poisson {
  const double* rates;
  Draw d;
  __device__ T operator()(const PhiloxWords& first, int64_t i) const {
    PhiloxWords w = first;
    uint64_t block = d.block;
    int used = 0;
    auto uniform = [&] {
      if (used == 2) {
        w = philox(d.seed, static_cast<uint64_t>(i), ++block);
        used = 0;
      }
      const double u = unit_f64(word64(w.w[2 * used], w.w[2 * used + 1]));
      ++used;
      return u;
    };
    const double lambda = rates[i];
    if (lambda >= 10) {
      const double slam = ::sqrt(lambda), loglam = ::log(lambda);
      const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
      const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), v_r = 0.9277 - 3.6224 / (b - 2);
      while (true) {
        const double U = uniform() - 0.5, V = uniform();
        const double us = 0.5 - ::fabs(U);
        const double k = ::floor((2 * a / us + b) * U + lambda + 0.43);
        if (us >= 0.07 && V <= v_r) return out_of_double<T>(k);
        if (k < 0 || (us < 0.013 && V > us)) continue;
        if (::log(V) + ::log(inv_alpha) - ::log(a / (us * us) + b) <= -lambda + k * loglam - ::lgamma(k + 1))
          return out_of_double<T>(k);
      }
    }
    if (lambda == 0) return out_of_int64<T>(0);
    const double limit = ::exp(-lambda);
    int64_t x = 0;
    for (double prod = uniform(); prod > limit; prod *= uniform()) ++x;
    return out_of_int64<T>(x);
  }
};

template <class T, class F>
__global__ void sample_kernel(T* out, int64_t n, Draw d, F f) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = f(philox(d.seed, static_cast<uint64_t>(i), d.block), i);
}

template <class T, class F>
void launch_sample(void* out, int64_t n, const Draw& d, const F& f, const char* what) {
  sample_kernel<T, F><<<grid_for(n), 256, 0, current_stream(-1)>>>(static_cast<T*>(out), n, d, f);
  check_launch(what);
}

// One draw of n elements into out (device memory) with transform f.
template <class T, class F>
void sample(void* out, int64_t n, Generator* gen, const F& f, const char* what) {
  if (n <= 0) return;
  const int device = device_of(out, what);
  const LaunchDevice on(device);
  launch_sample<T>(out, n, reserve(gen, device), f, what);
}

template <class T>
constexpr int digits_of() {
  if constexpr (std::is_same_v<T, Half>) return 11;
  else if constexpr (std::is_same_v<T, BFloat16>) return 8;
  else return std::numeric_limits<T>::digits;
}

// random_()'s modulus: 2^63 for int64, max + 1 for other integers, 2^digits + 1 for floats.
template <class T>
constexpr uint64_t random_bits_mod() {
  if constexpr (std::is_same_v<T, int64_t>) return uint64_t(1) << 63;
  else if constexpr (std::is_same_v<T, bool>) return 2;
  else if constexpr (std::is_integral_v<T>) return uint64_t(std::numeric_limits<T>::max()) + 1;
  else return (uint64_t(1) << digits_of<T>()) + 1;
}

template <class T>
__global__ void dropout_kernel(const T* x, T* out, bool* mask, int64_t n, Draw d, float keep, opmath_t<T> scale) {
  using A = opmath_t<T>;
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const bool k = unit_f32(philox(d.seed, static_cast<uint64_t>(i), d.block).w[0]) < keep;
    mask[i] = k;
    out[i] = static_cast<T>(static_cast<A>(x[i]) * (k ? scale : A(0)));
  }
}

}  // namespace

void uniform(ScalarType dt, void* out, int64_t n, double from, double to, Generator* gen) {
  EMBER_DISPATCH_FLOAT(dt, "uniform_kernel_cuda", [&] {
    using A = opmath_t<scalar_t>;
    const A f = static_cast<A>(from), t = static_cast<A>(to);
    sample<scalar_t>(out, n, gen, Uniform<scalar_t>{f, t - f, static_cast<A>(static_cast<scalar_t>(t))}, "uniform_");
  });
}

void normal(ScalarType dt, void* out, int64_t n, bool, double mean, double std, Generator* gen) {
  EMBER_DISPATCH_FLOAT(dt, "normal_kernel_cuda", [&] {
    using A = opmath_t<scalar_t>;
    sample<scalar_t>(out, n, gen, Normal<scalar_t>{static_cast<A>(mean), static_cast<A>(std)}, "normal_");
  });
}

void exponential(ScalarType dt, void* out, int64_t n, double lambd, Generator* gen) {
  EMBER_DISPATCH_FLOAT(dt, "exponential_cuda", [&] {
    sample<scalar_t>(out, n, gen, DoubleMap<scalar_t>{DoubleMapKind::Exponential, -1.0 / lambd, 0}, "exponential_");
  });
}

void cauchy(ScalarType dt, void* out, int64_t n, double median, double sigma, Generator* gen) {
  EMBER_DISPATCH_FLOAT(dt, "cauchy_cuda", [&] {
    sample<scalar_t>(out, n, gen, DoubleMap<scalar_t>{DoubleMapKind::Cauchy, sigma, median}, "cauchy_");
  });
}

void log_normal(ScalarType dt, void* out, int64_t n, double mean, double std, Generator* gen) {
  EMBER_DISPATCH_FLOAT(dt, "log_normal_cuda", [&] {
    sample<scalar_t>(out, n, gen, DoubleMap<scalar_t>{DoubleMapKind::LogNormal, mean, std}, "log_normal_");
  });
}

void geometric(ScalarType dt, void* out, int64_t n, double p, Generator* gen) {
  EMBER_DISPATCH_NO_BOOL(dt, "geometric_cuda", [&] {
    sample<scalar_t>(out, n, gen, DoubleMap<scalar_t>{DoubleMapKind::Geometric, std::log1p(-p), 0}, "geometric_");
  });
}

void bernoulli(ScalarType dt, void* out, int64_t n, double p, Generator* gen) {
  EMBER_DISPATCH_ALL(dt, "bernoulli_scalar_cuda_",
                     [&] { sample<scalar_t>(out, n, gen, Bernoulli<scalar_t>{p}, "bernoulli_"); });
}

void bernoulli_tensor(ScalarType dt, void* out, int64_t n, const void* p, bool p_double, Generator* gen) {
  EMBER_DISPATCH_ALL(dt, "bernoulli_tensor_cuda_self_", [&] {
    if (p_double)
      sample<scalar_t>(out, n, gen, BernoulliTensor<scalar_t, double>{static_cast<const double*>(p)}, "bernoulli_");
    else sample<scalar_t>(out, n, gen, BernoulliTensor<scalar_t, float>{static_cast<const float*>(p)}, "bernoulli_");
  });
}

void random_bits(ScalarType dt, void* out, int64_t n, Generator* gen) {
  EMBER_DISPATCH_ALL(dt, "random_kernel_cuda", [&] {
    sample<scalar_t>(out, n, gen, RandomBits<scalar_t>{random_bits_mod<scalar_t>()}, "random_");
  });
}

void random_range(ScalarType dt, void* out, int64_t n, uint64_t range, int64_t base, Generator* gen) {
  EMBER_DISPATCH_ALL_AND_UINT(dt, "random_from_to_kernel_cuda", [&] {
    sample<scalar_t>(out, n, gen, RandomRange<scalar_t>{range, static_cast<uint64_t>(base)}, "random_");
  });
}

void random_full64(ScalarType dt, void* out, int64_t n, Generator* gen) {
  EMBER_DISPATCH_ALL(dt, "random_from_to_kernel_cuda",
                     [&] { sample<scalar_t>(out, n, gen, Full64<scalar_t>{}, "random_"); });
}

// A permutation made on the host (Fisher-Yates on Philox words from the CUDA generator), then
// one upload: the only host work here, and it reads no device memory.
void randperm(ScalarType dt, void* out, int64_t n, Generator* gen) {
  if (n <= 0) return;
  const int device = device_of(out, "randperm");
  const Draw d = reserve(gen, device);
  std::vector<int64_t> r(static_cast<size_t>(n));
  std::iota(r.begin(), r.end(), int64_t(0));
  for (int64_t i = 0; i + 1 < n; ++i) {
    const PhiloxWords w = philox(d.seed, static_cast<uint64_t>(i), d.block);
    const auto z = static_cast<int64_t>(word64(w.w[0], w.w[1]) % static_cast<uint64_t>(n - i));
    std::swap(r[static_cast<size_t>(i)], r[static_cast<size_t>(i + z)]);
  }
  EMBER_DISPATCH_NO_BOOL(dt, "randperm_cuda", [&] {
    std::vector<scalar_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_arithmetic_v<scalar_t>) v[static_cast<size_t>(i)] = static_cast<scalar_t>(r[i]);
      else v[static_cast<size_t>(i)] = scalar_t(static_cast<float>(r[i]));
    }
    upload_async(out, device, v.data(), static_cast<size_t>(n) * sizeof(scalar_t));  // no wait, as PyTorch's
  });
}

void poisson(ScalarType dt, void* out, const double* rates, int64_t n, Generator* gen) {
  if (n <= 0) return;
  const int device = device_of(out, "poisson");
  const LaunchDevice on(device);
  const Draw d = reserve(gen, device, kPoissonBlocks);
  EMBER_DISPATCH_FLOAT(dt, "poisson_cuda",
                       [&] { launch_sample<scalar_t>(out, n, d, Poisson<scalar_t>{rates, d}, "poisson"); });
}

// native_dropout: the keep-mask from the device's default generator (the entry takes none, as the
// CPU one uses the default CPU generator), keep where a float uniform is below 1 - p.
void dropout(ScalarType dt, const void* x, void* out, bool* mask, int64_t n, double p) {
  if (n <= 0) return;
  const int device = device_of(out, "native_dropout");
  const LaunchDevice on(device);
  const Draw d = reserve(nullptr, device);
  const double scale = p == 1 ? 0.0 : 1.0 / (1.0 - p);
  EMBER_DISPATCH_FLOAT(dt, "native_dropout_cuda", [&] {
    using A = opmath_t<scalar_t>;
    dropout_kernel<scalar_t>
        <<<grid_for(n), 256, 0, current_stream(-1)>>>(static_cast<const scalar_t*>(x), static_cast<scalar_t*>(out),
                                                      mask, n, d, static_cast<float>(1.0 - p), static_cast<A>(scale));
  });
  check_launch("native_dropout");
}

}  // namespace ember::cuda
