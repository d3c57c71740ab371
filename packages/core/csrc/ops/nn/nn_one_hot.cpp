// one_hot: int64 class indices of any shape -> (*, num_classes) of 0 / 1, checked first
// (negative or too-large classes raise PyTorch's errors; nothing is written out of range); the
// ones are written by the backend table's EmbeddingKernels::one_hot.
#include <algorithm>

#include "core/size_math.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"

namespace ember {

Tensor nn_one_hot(const Tensor& self, int64_t num_classes) {
  EMBER_CHECK(self.dtype() == ScalarType::Int64, "one_hot is only applicable to index tensor of type LongTensor.");
  Tensor idx = contiguous(self, MemoryFormat::Contiguous);
  const int64_t n = idx.numel();
  const int64_t* ip = idx.data<int64_t>();
  // aten: an empty input needs a positive num_classes (0 and -1 alike).
  EMBER_CHECK(n > 0 || num_classes > 0, "Can not infer total number of classes from empty tensor.");
  int64_t lo = 0, hi = 0;
  // meta: no values; the class count must be given (PyTorch's meta one_hot reads them for -1)
  if (idx.device().is_meta() && num_classes != -1) {
  } else if (n > 0 && !idx.device().is_cpu()) {  // reduced on the device, two numbers brought back
    lo = min(idx).item().to<int64_t>();
    hi = max(idx).item().to<int64_t>();
  } else if (n > 0) {
    const auto [l, h] = std::minmax_element(ip, ip + n);
    lo = *l, hi = *h;
  }
  if (num_classes == -1) num_classes = add_or_fail(hi, 1, "one_hot");
  if (n > 0 && !idx.device().is_meta()) {
    EMBER_CHECK(lo >= 0, "Class values must be non-negative.");
    EMBER_CHECK(hi < num_classes, "Class values must be smaller than num_classes.");
  }
  DimVector shape(self.sizes().begin(), self.sizes().end());
  shape.push_back(std::max<int64_t>(num_classes, 0));
  Tensor out = zeros(IntArrayRef(shape), ScalarType::Int64, self.device());
  backend(out).embedding.one_hot(ip, n, num_classes, out.data<int64_t>());
  return out;
}

}  // namespace ember
