// The discrete samplers on the CPU (kernels/backend.h, RandomKernels): random_'s integers,
// randperm, multinomial and poisson, each drawing as PyTorch's CPU kernel does (Note [RNG
// streams] in ops/random/random.cpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "core/error.h"
#include "core/scalar_type.h"
#include "kernels/cpu/random/draw.h"
#include "kernels/cpu/random/samplers.h"

namespace ember::sampling {

using namespace rng;

namespace {

// Uniform integers in [base, base + range): one 32-bit draw per value below
// 2^28 (PyTorch's allowance for modulo skew), one 64-bit draw above.
template <class T>
void from_to_fill(T* out, int64_t n, uint64_t range, int64_t base, Generator* gen) {
  DrawScope s(gen, n);
  const uint64_t ubase = static_cast<uint64_t>(base);
  if (range >= (uint64_t(1) << 28)) {
    draw<uint64_t>(s.gen(), n, false, [&](const uint64_t* w, int64_t b, int64_t m) {
      for (int64_t i = 0; i < m; ++i) out[b + i] = from_int64<T>(static_cast<int64_t>(w[i] % range + ubase));
    });
  } else {
    const Mod32 mod(static_cast<uint32_t>(range));
    draw<uint32_t>(s.gen(), n, false, [&](const uint32_t* w, int64_t b, int64_t m) {
      for (int64_t i = 0; i < m; ++i) out[b + i] = from_int64<T>(static_cast<int64_t>(mod(w[i]) + ubase));
    });
  }
}

// random_() with no bounds: [0, 2^digits] for floats, [0, max] for integers.
template <class T>
void plain_fill(T* out, int64_t n, Generator* gen) {
  DrawScope s(gen, n);
  if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
    constexpr uint64_t mod = std::is_same_v<T, double> ? (uint64_t(1) << 53) + 1 : uint64_t(1) << 63;
    draw<uint64_t>(s.gen(), n, false, [&](const uint64_t* w, int64_t b, int64_t m) {
      for (int64_t i = 0; i < m; ++i) out[b + i] = static_cast<T>(w[i] % mod);
    });
  } else {
    uint64_t mod;
    if constexpr (std::is_same_v<T, bool>) mod = 2;
    else if constexpr (std::is_integral_v<T>) mod = uint64_t(std::numeric_limits<T>::max()) + 1;
    else mod = (uint64_t(1) << mantissa_digits<T>()) + 1;
    draw<uint32_t>(s.gen(), n, false, [&](const uint32_t* w, int64_t b, int64_t m) {
      for (int64_t i = 0; i < m; ++i) out[b + i] = from_int64<T>(static_cast<int64_t>(w[i] % mod));
    });
  }
}

// Fisher-Yates as PyTorch runs it: below 2^32/20 swap r[i] with r[i + draw % (n - i)];
// above, the "inside-out" variant on 64-bit draws.
template <class T>
void randperm_fill(T* r, int64_t n, Generator& g) {
  if (n < static_cast<int64_t>(std::numeric_limits<uint32_t>::max() / 20)) {
    for (int64_t i = 0; i < n; ++i) r[i] = from_int64<T>(i);
    std::unique_ptr<uint32_t[]> z(
        new uint32_t[static_cast<size_t>(std::min<int64_t>(std::max<int64_t>(n, 1), kChunk))]);
    draw<uint32_t>(g, n - 1, false, [&](const uint32_t* w, int64_t b, int64_t m) {
      // Offsets first (independent divisions overlap), then the swaps, whose
      // random targets are known ahead and can be prefetched.
      for (int64_t k = 0; k < m; ++k) z[k] = w[k] % static_cast<uint32_t>(n - (b + k));
      constexpr int64_t kAhead = 16;
      for (int64_t k = 0; k < m; ++k) {
        if (k + kAhead < m) __builtin_prefetch(r + b + k + kAhead + z[k + kAhead], 1);
        int64_t i = b + k;
        std::swap(r[i], r[i + z[k]]);
      }
    });
    return;
  }
  draw<uint64_t>(g, n, false, [&](const uint64_t* w, int64_t b, int64_t m) {
    for (int64_t k = 0; k < m; ++k) {
      int64_t i = b + k;
      auto z = static_cast<int64_t>(w[k] % static_cast<uint64_t>(i + 1));
      r[i] = r[z];
      r[z] = from_int64<T>(i);
    }
  });
}

// With replacement (and more than one sample): inverse-CDF sampling per row,
// one 64-bit uniform per sample, binary search in the normalised cumulative sums.
template <class T>
void replace_rows(const MultinomialProbs& p, int64_t ns, int64_t* out, Generator& g) {
  using Acc = opmath_t<T>;
  const T* base = static_cast<const T*>(p.data);
  const int64_t s0 = p.s0, s1 = p.s1, rows = p.rows, cats = p.cats;
  std::vector<Acc> cum(static_cast<size_t>(cats));
  for (int64_t i = 0; i < rows; ++i) {
    Acc sum = 0;
    for (int64_t j = 0; j < cats; ++j) {
      Acc v = static_cast<Acc>(base[i * s0 + j * s1]);
      EMBER_CHECK(v >= 0, "invalid multinomial distribution (encountering probability entry < 0)");
      EMBER_CHECK(std::isfinite(v),
                  "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      sum += v;
      cum[j] = sum;
    }
    EMBER_CHECK(sum > 0, "invalid multinomial distribution (sum of probabilities <= 0)");
    for (int64_t j = 0; j < cats; ++j) cum[j] /= sum;
    cum[cats - 1] = 1;
    for (int64_t k = 0; k < ns; ++k) {
      double u = unit_double(g.random64());
      int64_t lo = 0, hi = cats;
      while (hi - lo > 0) {
        int64_t mid = lo + (hi - lo) / 2;
        if (static_cast<double>(cum[mid]) < u) lo = mid + 1;
        else hi = mid;
      }
      out[i * ns + k] = lo;
    }
  }
}

// Without replacement (or one sample): the exponential race -- keys p / E with
// E ~ Exp(1), the largest `ns` keys win (PyTorch's topk; ties go to the lower index).
template <class T>
void race_rows(const MultinomialProbs& p, const T* qq, int64_t qs0, int64_t qs1, int64_t ns, int64_t* out) {
  const int64_t ps0 = p.s0, ps1 = p.s1, rows = p.rows, cats = p.cats;
  const T* pp = static_cast<const T*>(p.data);
  std::vector<T> key(static_cast<size_t>(cats));
  std::vector<int64_t> idx(static_cast<size_t>(cats));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cats; ++j)
      key[j] = static_cast<T>(static_cast<opmath_t<T>>(pp[i * ps0 + j * ps1]) /
                              static_cast<opmath_t<T>>(qq[i * qs0 + j * qs1]));
    std::iota(idx.begin(), idx.end(), 0);
    auto better = [&](int64_t a, int64_t b) {
      auto ka = static_cast<opmath_t<T>>(key[a]), kb = static_cast<opmath_t<T>>(key[b]);
      return ka > kb || (ka == kb && a < b);
    };
    std::partial_sort(idx.begin(), idx.begin() + ns, idx.end(), better);
    std::copy(idx.begin(), idx.begin() + ns, out + i * ns);
  }
}

// One Poisson(lambda) sample, as PyTorch draws it: multiplying uniforms for
// lambda < 10, else Hormann's transformed rejection (PTRS, 1993).
int64_t poisson_sample(double lambda, Generator& g) {
  auto uniform = [&] { return unit_double(g.random64()); };
  if (lambda >= 10) {
    const double slam = std::sqrt(lambda), loglam = std::log(lambda);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    const double v_r = 0.9277 - 3.6224 / (b - 2);
    while (true) {
      const double U = uniform() - 0.5;
      const double V = uniform();
      const double us = 0.5 - std::fabs(U);
      const int64_t k = to_int64_x86(std::floor((2 * a / us + b) * U + lambda + 0.43));
      if (us >= 0.07 && V <= v_r) return k;
      if (k < 0 || (us < 0.013 && V > us)) continue;
      if (std::log(V) + std::log(inv_alpha) - std::log(a / (us * us) + b) <=
          -lambda + k * loglam - std::lgamma(static_cast<double>(k) + 1))
        return k;
    }
  }
  if (lambda == 0) return 0;
  const double limit = std::exp(-lambda);
  int64_t x = 0;
  double prod = 1.0;
  while (true) {
    prod *= uniform();
    if (prod > limit) ++x;
    else return x;
  }
}

}  // namespace

void random_bits(ScalarType dt, void* out, int64_t n, Generator* gen) {
  EMBER_DISPATCH_ALL(dt, "random_kernel_cpu", [&] { plain_fill(static_cast<scalar_t*>(out), n, gen); });
}

void random_range(ScalarType dt, void* out, int64_t n, uint64_t range, int64_t base, Generator* gen) {
  EMBER_DISPATCH_ALL_AND_UINT(dt, "random_from_to_kernel_cpu",
                              [&] { from_to_fill(static_cast<scalar_t*>(out), n, range, base, gen); });
}

void random_full64(ScalarType dt, void* out, int64_t n, Generator* gen) {
  EMBER_DISPATCH_ALL(dt, "random_from_to_kernel_cpu", [&] {
    auto* o = static_cast<scalar_t*>(out);
    DrawScope s(gen, n);
    draw<uint64_t>(s.gen(), n, false, [&](const uint64_t* w, int64_t b, int64_t m) {
      for (int64_t i = 0; i < m; ++i) o[b + i] = from_int64<scalar_t>(static_cast<int64_t>(w[i]));
    });
  });
}

void randperm(ScalarType dt, void* out, int64_t n, Generator* gen) {
  EMBER_DISPATCH_NO_BOOL(dt, "randperm", [&] {
    DrawScope s(gen, n);
    randperm_fill(static_cast<scalar_t*>(out), n, s.gen());
  });
}

void multinomial_replace(ScalarType dt, const MultinomialProbs& p, int64_t ns, int64_t* out, Generator* gen) {
  DrawScope s(gen, p.rows * ns);
  EMBER_DISPATCH_FLOAT(dt, "multinomial", [&] { replace_rows<scalar_t>(p, ns, out, s.gen()); });
}

void multinomial_race(ScalarType dt, const MultinomialProbs& p, const void* q, int64_t qs0, int64_t qs1, int64_t ns,
                      int64_t* out) {
  EMBER_DISPATCH_FLOAT(dt, "multinomial",
                       [&] { race_rows<scalar_t>(p, static_cast<const scalar_t*>(q), qs0, qs1, ns, out); });
}

void poisson(ScalarType dt, void* out, const double* rates, int64_t n, Generator* gen) {
  EMBER_DISPATCH_FLOAT(dt, "poisson_cpu", [&] {
    auto* o = static_cast<scalar_t*>(out);
    DrawScope s(gen, n);
    for (int64_t i = 0; i < n; ++i) o[i] = from_int64<scalar_t>(poisson_sample(rates[i], s.gen()));
  });
}

}  // namespace ember::sampling
