// native_dropout: zero each element with probability p and scale the rest by 1/(1-p);
// returns the output and the bool keep-mask (the backward multiplies by it).
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"

namespace ember {

std::tuple<Tensor, Tensor> nn_native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  // PyTorch returns at once for an empty input, before any check: the mask is empty_like(input),
  // of the input's dtype (not bool), in training and in eval alike.
  if (input.numel() == 0) return {clone(input, std::nullopt), empty(input.sizes(), input.dtype(), input.device())};
  if (train.has_value() && !*train) {
    return {clone(input, std::nullopt), ones(input.sizes(), ScalarType::Bool, input.device())};
  }
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", 1 - p);
  if (input.dtype() == ScalarType::ComplexHalf) dtype_not_implemented("bernoulli_scalar_cpu_", input.dtype());
  if (is_complex(input.dtype())) {
    // aten's fused kernel scales each complex element as a whole: one draw per element, its scale
    // (0 or 1/(1-p)) made in the real part type
    const ScalarType part = input.dtype() == ScalarType::ComplexFloat ? ScalarType::Float32 : ScalarType::Float64;
    auto [scale, mask] = nn_native_dropout(ones(input.sizes(), part, input.device()), p, true);
    return {mul(input, scale), mask};
  }
  EMBER_CHECK(is_floating(input.dtype()), "result type Float can't be cast to the desired output type ",
              legacy_name(input.dtype()));
  Tensor x = contiguous(input, MemoryFormat::Contiguous);
  Tensor out = empty(x.sizes(), x.dtype(), x.device());
  Tensor mask = empty(x.sizes(), ScalarType::Bool, x.device());
  backend(x).random.dropout(x.dtype(), x.raw(), out.raw(), mask.data<bool>(), x.numel(), p);
  return {out, mask};
}

}  // namespace ember
