// native_dropout's compute on the CPU (kernels/backend.h, RandomKernels::dropout): the keep-mask
// drawn from the default generator, then the kept elements scaled by 1 / (1 - p).
#include "core/parallel.h"
#include "core/scalar_type.h"
#include "kernels/cpu/random/draw.h"
#include "kernels/cpu/random/samplers.h"

namespace ember::sampling {

void dropout(ScalarType dt, const void* x, void* out, bool* mask, int64_t n, double p) {
  // keep where bernoulli_(1 - p) draws 1: the same draws as that sampler (as PyTorch's dropout), so
  // a seeded run drops the same elements and leaves the generator where PyTorch's does
  bernoulli(ScalarType::Bool, mask, n, 1.0 - p, nullptr);
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
