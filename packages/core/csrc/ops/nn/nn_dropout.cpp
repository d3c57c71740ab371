// native_dropout: zero each element with probability p and scale the rest by 1/(1-p);
// returns the output and the bool keep-mask (the backward multiplies by it).
#include <cmath>

#include "core/parallel.h"
#include "iter/elementwise_iter.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/random/random_internal.h"

namespace ember {

std::tuple<Tensor, Tensor> nn_native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  // PyTorch returns at once for an empty input, before any check: the mask is empty_like(input),
  // of the input's dtype (not bool), in training and in eval alike.
  if (input.numel() == 0) return {clone(input, std::nullopt), empty(input.sizes(), input.dtype(), input.device())};
  if (train.has_value() && !*train) {
    return {clone(input, std::nullopt), ones(input.sizes(), ScalarType::Bool, input.device())};
  }
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", 1 - p);
  EMBER_CHECK(is_floating(input.dtype()), "result type Float can't be cast to the desired output type ",
              legacy_name(input.dtype()));
  Tensor x = contiguous(input, MemoryFormat::Contiguous);
  Tensor out = empty(x.sizes(), x.dtype(), x.device());
  Tensor mask = empty(x.sizes(), ScalarType::Bool, x.device());
  const int64_t n = x.numel();
  bool* mp = mask.data<bool>();
  {
    // keep where a uniform draw falls below 1 - p (bernoulli(1 - p))
    const float keep = static_cast<float>(1.0 - p);
    rng::DrawScope scope(nullptr, n);
    rng::draw<uint32_t>(scope.gen(), n, n >= rng::kVectorGrain, [&](const uint32_t* w, int64_t first, int64_t cnt) {
      for (int64_t i = 0; i < cnt; ++i) mp[first + i] = rng::unit_float(w[i]) < keep;
    });
  }
  const double scale = p == 1 ? 0.0 : 1.0 / (1.0 - p);
  EMBER_DISPATCH_FLOAT(x.dtype(), "native_dropout", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* op = out.data<scalar_t>();
    const A s = static_cast<A>(scale);
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) op[i] = scalar_t(static_cast<A>(xp[i]) * (mp[i] ? s : A(0)));
    });
  });
  return {out, mask};
}

}  // namespace ember
