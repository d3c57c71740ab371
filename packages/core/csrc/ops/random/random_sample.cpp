// Out-of-place samplers built on the in-place ones: normal (tensor overloads),
// bernoulli, multinomial, poisson. Streams follow Note [RNG streams].
#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/random/random.h"
#include "ops/random/random_internal.h"

namespace ember {

using namespace rng;

// ---- normal ------------------------------------------------------------------

namespace {
void check_std_tensor(const Tensor& std) {
  if (std.numel() == 0) return;
  // min(std) >= 0, so NaN fails too.
  bool ok = true;
  Tensor s = contiguous(std, MemoryFormat::Contiguous);
  EMBER_DISPATCH_ALL(s.dtype(), "min_all", [&] {
    const scalar_t* p = s.data<scalar_t>();
    for (int64_t i = 0; i < s.numel() && ok; ++i) ok = static_cast<double>(p[i]) >= 0;
  });
  EMBER_CHECK(ok, "normal expects all elements of std >= 0.0");
}
}  // namespace

// PyTorch draws N(0, 1) (or N(0, std)) into the result and then scales and
// shifts it with tensor ops, so gradients flow through mean and std.
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen, const Tensor* out) {
  check_std_tensor(std);
  DimVector shape = broadcast_shapes(mean.sizes(), std.sizes());
  Tensor ret = out ? resize_out(*out, shape) : empty(shape, mean.dtype(), mean.device());
  normal_(ret, 0, 1, gen);
  mul_(ret, std);
  add_(ret, mean, Scalar(int64_t(1)));
  return ret;
}

Tensor normal(const Tensor& mean, double std, Generator* gen, const Tensor* out) {
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  Tensor ret;
  if (out) {
    // PyTorch broadcasts mean against out's current shape here (a quirk kept as is).
    ret = resize_out(*out, broadcast_shapes(mean.sizes(), out->sizes()));
  } else {
    ret = empty(mean.sizes(), mean.dtype(), mean.device());
  }
  normal_(ret, 0, std, gen);
  add_(ret, mean, Scalar(int64_t(1)));
  return ret;
}

Tensor normal(double mean, const Tensor& std, Generator* gen, const Tensor* out) {
  check_std_tensor(std);
  Tensor ret = out ? *out : empty({0}, std.dtype(), std.device());
  // PyTorch makes the 0-d mean in the result's dtype first: a mean out of its range is full's
  // overflow error, before the sampler's dtype check.
  Tensor mean_t = full({}, Scalar(mean), ret.dtype());
  resize_out(ret, std.sizes());
  normal_(ret, 0, 1, gen);
  mul_(ret, std);
  add_(ret, mean_t);
  return ret;
}

// ---- bernoulli -----------------------------------------------------------------

Tensor bernoulli(const Tensor& probs, Generator* gen, const Tensor* out) {
  Tensor ret = out ? resize_out(*out, probs.sizes()) : empty(probs.sizes(), probs.dtype(), probs.device());
  bernoulli_(ret, probs, gen);
  return ret;
}

// ---- multinomial -----------------------------------------------------------------

namespace {

// With replacement (and more than one sample): inverse-CDF sampling per row,
// one 64-bit uniform per sample, binary search in the normalised cumulative sums.
template <class T>
void multinomial_replace(const Tensor& p, int64_t rows, int64_t cats, int64_t ns, int64_t* out, Generator& g) {
  using Acc = opmath_t<T>;
  const T* base = p.data<T>();
  const int64_t s0 = p.dim() > 1 ? p.stride(0) : 0, s1 = p.stride(-1);
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
void multinomial_race(const Tensor& p, const Tensor& q, int64_t rows, int64_t cats, int64_t ns, int64_t* out) {
  const int64_t ps0 = p.dim() > 1 ? p.stride(0) : 0, ps1 = p.stride(-1);
  const int64_t qs0 = q.dim() > 1 ? q.stride(0) : 0, qs1 = q.stride(-1);
  const T* pp = p.data<T>();
  const T* qq = q.data<T>();
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

}  // namespace

Tensor multinomial(const Tensor& probs, int64_t ns, bool replacement, Generator* gen, const Tensor* out) {
  EMBER_CHECK(probs.dim() > 0 && probs.dim() <= 2, "prob_dist must be 1 or 2 dim");
  EMBER_CHECK(probs.is_floating(),
              "multinomial only supports floating-point dtypes for input, got: ", legacy_name(probs.dtype()));
  if (out)
    EMBER_CHECK(out->dtype() == ScalarType::Int64,
                "multinomial expects Long tensor out, got: ", legacy_name(out->dtype()));
  EMBER_CHECK(ns > 0, "cannot sample n_sample <= 0 samples");
  const int64_t cats = probs.size(-1);
  EMBER_CHECK(replacement || ns <= cats, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  EMBER_CHECK(cats <= (int64_t(1) << 24), "number of categories cannot exceed 2^24");
  const int64_t rows = probs.dim() == 1 ? 1 : probs.size(0);
  DimVector shape = probs.dim() == 1 ? DimVector{ns} : DimVector{rows, ns};
  Tensor result = out ? resize_out(*out, shape) : empty(shape, ScalarType::Int64, probs.device());
  if (result.numel() == 0) return result;
  Tensor res = result.is_contiguous() ? result : empty(shape, ScalarType::Int64, result.device());
  int64_t* o = res.data<int64_t>();
  if (!replacement || ns == 1) {
    bool valid = true, zero_row = false;
    EMBER_DISPATCH_FLOAT(probs.dtype(), "multinomial", [&] {
      const int64_t s0 = probs.dim() > 1 ? probs.stride(0) : 0, s1 = probs.stride(-1);
      const scalar_t* pp = probs.data<scalar_t>();
      for (int64_t i = 0; i < rows; ++i) {
        bool all_zero = true;
        for (int64_t j = 0; j < cats; ++j) {
          auto v = static_cast<opmath_t<scalar_t>>(pp[i * s0 + j * s1]);
          valid = valid && v >= 0 && v < std::numeric_limits<opmath_t<scalar_t>>::infinity();
          all_zero = all_zero && v == 0;
        }
        zero_row = zero_row || all_zero;
      }
    });
    EMBER_CHECK(valid, "probability tensor contains either `inf`, `nan` or element < 0");
    EMBER_CHECK(!zero_row, "invalid multinomial distribution (sum of probabilities <= 0)");
    Tensor q = empty_like(probs, std::nullopt, std::nullopt, std::nullopt);
    exponential_(q, 1.0, gen);
    EMBER_DISPATCH_FLOAT(probs.dtype(), "multinomial",
                         [&] { multinomial_race<scalar_t>(probs, q, rows, cats, ns, o); });
  } else {
    DrawScope s(gen, rows * ns);
    EMBER_DISPATCH_FLOAT(probs.dtype(), "multinomial",
                         [&] { multinomial_replace<scalar_t>(probs, rows, cats, ns, o, s.gen()); });
  }
  if (!res.same(result)) copy_into(result, res);
  if (out) result.bump_version();
  return result;
}

// ---- poisson ---------------------------------------------------------------------

namespace {

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

Tensor poisson(const Tensor& rates, Generator* gen) {
  EMBER_CHECK_NOTIMPL(rates.is_floating(), "\"poisson_cpu\" not implemented for '", legacy_name(rates.dtype()), "'");
  Tensor lam = to_dtype(contiguous(rates, MemoryFormat::Contiguous), ScalarType::Float64);
  const double* lp = lam.data<double>();
  const int64_t n = lam.numel();
  for (int64_t i = 0; i < n; ++i) EMBER_CHECK(lp[i] >= 0, "invalid Poisson rate, expected rate to be non-negative");
  Tensor ret = empty(rates.sizes(), rates.dtype(), rates.device());
  EMBER_DISPATCH_FLOAT(ret.dtype(), "poisson_cpu", [&] {
    scalar_t* o = ret.data<scalar_t>();
    DrawScope s(gen, n);
    for (int64_t i = 0; i < n; ++i) o[i] = from_int64<scalar_t>(poisson_sample(lp[i], s.gen()));
  });
  return ret;
}

}  // namespace ember
