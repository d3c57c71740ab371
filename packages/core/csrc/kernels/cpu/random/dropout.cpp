// native_dropout's compute on the CPU (kernels/backend.h, RandomKernels::dropout): the keep-mask
// drawn from the default generator, then the kept elements scaled by 1 / (1 - p).
#include "core/parallel.h"
#include "core/scalar_type.h"
#include "kernels/cpu/random/draw.h"
#include "kernels/cpu/random/samplers.h"

namespace ember::sampling {

void dropout(ScalarType dt, const void* x, void* out, bool* mask, int64_t n, double p) {
  {
    // keep where a uniform draw falls below 1 - p (bernoulli(1 - p))
    const float keep = static_cast<float>(1.0 - p);
    rng::DrawScope scope(nullptr, n);
    rng::draw<uint32_t>(scope.gen(), n, n >= rng::kVectorGrain, [&](const uint32_t* w, int64_t first, int64_t cnt) {
      for (int64_t i = 0; i < cnt; ++i) mask[first + i] = unit_float(w[i]) < keep;
    });
  }
  const double scale = p == 1 ? 0.0 : 1.0 / (1.0 - p);
  EMBER_DISPATCH_FLOAT(dt, "native_dropout", [&] {
    using A = opmath_t<scalar_t>;
    const auto* xp = static_cast<const scalar_t*>(x);
    auto* op = static_cast<scalar_t*>(out);
    const A s = static_cast<A>(scale);
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) op[i] = scalar_t(static_cast<A>(xp[i]) * (mask[i] ? s : A(0)));
    });
  });
}

}  // namespace ember::sampling
