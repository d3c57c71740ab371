// Out-of-place samplers built on the in-place ones: normal (tensor overloads),
// bernoulli, multinomial, poisson. Streams follow Note [RNG streams].
#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "kernels/backend.h"
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
  EMBER_CHECK(!is_complex(std.dtype()), "normal expects standard deviation to be non-complex");
  if (std.numel() == 0 || std.device().is_meta()) return;  // meta: no values to check
  // min(std) >= 0, so NaN fails too.
  bool ok = true;
  if (!std.device().is_cpu()) {  // on the device: one flag comes back (NaN fails the compare)
    ok = all(ge(std, full({}, Scalar(0.0), std.dtype()))).item().to_bool();
    EMBER_CHECK(ok, "normal expects all elements of std >= 0.0");
    return;
  }
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

// Where the backend has no sampler of its own (the GPU): PyTorch's CUDA algorithm from ops on the
// device. Its checks as reductions read back (waits, as PyTorch's); without replacement (or for
// one sample) the exponential race, the largest p / q with q ~ Exp(1); with replacement a binary
// search of uniform draws, scaled by each row's total, in the row's running sums (float64).
Tensor multinomial_on_device(const Tensor& probs, int64_t ns, bool replacement, Generator* gen) {
  const int64_t cats = probs.size(-1);
  const int64_t last[] = {-1};
  if (cats > 0) {
    const Tensor in_range = logical_and(ge(amin(probs), wrap_scalar(Scalar(0.0))),
                                        lt(amax(probs), wrap_scalar(Scalar(std::numeric_limits<double>::infinity()))));
    EMBER_CHECK(in_range.item().to_bool(), "probability tensor contains either `inf`, `nan` or element < 0");
  }
  EMBER_CHECK(cats > 0 && !any(eq(sum(probs, IntArrayRef(last, 1), false), wrap_scalar(Scalar(0.0)))).item().to_bool(),
              "invalid multinomial distribution (sum of probabilities <= 0)");
  if (!replacement || ns == 1) {
    Tensor q = empty_like(probs, std::nullopt, std::nullopt, std::nullopt);
    exponential_(q, 1.0, gen);
    const Tensor race = div(probs, q);
    return ns == 1 ? argmax(race, -1, true) : std::get<1>(topk(race, ns, -1, true, true));
  }
  const Tensor cdf = cumsum(to_dtype(probs, ScalarType::Float64), -1);
  DimVector shape = probs.dim() == 1 ? DimVector{ns} : DimVector{probs.size(0), ns};
  Tensor u = empty(shape, ScalarType::Float64, probs.device());
  uniform_(u, 0.0, 1.0, gen);
  u = mul(u, narrow(cdf, -1, cats - 1, 1));
  // (a draw that rounds up to the total would land past the last category)
  return clamp_max(searchsorted(cdf, u, false, true, std::nullopt, Tensor()), Scalar(cats - 1));
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
  Tensor result = out ? resize_out(*out, shape, false) : empty(shape, ScalarType::Int64, probs.device());
  if (result.numel() == 0) return result;
  if (!backend(probs).random.multinomial_race) {
    copy_into(result, multinomial_on_device(probs, ns, replacement, gen));
    if (out) result.bump_version();
    return result;
  }
  // The checks and samplers below read the probabilities on the host.
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
    backend(probs).random.multinomial_race(
        probs.dtype(),
        MultinomialProbs{probs.raw(), probs.dim() > 1 ? probs.stride(0) : 0, probs.stride(-1), rows, cats}, q.raw(),
        q.dim() > 1 ? q.stride(0) : 0, q.stride(-1), ns, o);
  } else {
    backend(probs).random.multinomial_replace(
        probs.dtype(),
        MultinomialProbs{probs.raw(), probs.dim() > 1 ? probs.stride(0) : 0, probs.stride(-1), rows, cats}, ns, o, gen);
  }
  if (!res.same(result)) copy_into(result, res);
  if (out) result.bump_version();
  return result;
}

// ---- poisson ---------------------------------------------------------------------

namespace {}  // namespace

Tensor poisson(const Tensor& rates, Generator* gen) {
  EMBER_CHECK_NOTIMPL(rates.is_floating(), "\"poisson_cpu\" not implemented for '", legacy_name(rates.dtype()), "'");
  Tensor lam = to_dtype(contiguous(rates, MemoryFormat::Contiguous), ScalarType::Float64);
  const int64_t n = lam.numel();
  bool valid = true;
  if (lam.device().is_meta()) {         // no values to check
  } else if (!lam.device().is_cpu()) {  // one wait on a device, a reduction read back
    valid = n == 0 || ge(amin(lam), wrap_scalar(Scalar(0.0))).item().to_bool();
  } else {
    const double* lp = lam.data<double>();
    for (int64_t i = 0; i < n && valid; ++i) valid = lp[i] >= 0;
  }
  EMBER_CHECK(valid, "invalid Poisson rate, expected rate to be non-negative");
  Tensor ret = empty(rates.sizes(), rates.dtype(), rates.device());
  backend(ret).random.poisson(ret.dtype(), ret.raw(), static_cast<const double*>(static_cast<const void*>(lam.raw())),
                              n, gen);
  return ret;
}

}  // namespace ember
