#include "cum_extreme.h"

#include "kernels/backend.h"
#include "ops.h"  // generated

namespace ember {

std::pair<Tensor, Tensor> cum_extreme(const Tensor& x, int64_t dim, bool greater) {
  Tensor xc = contiguous(x, MemoryFormat::Contiguous);
  Tensor values = empty(x.sizes(), x.dtype(), x.device());
  Tensor indices = empty(x.sizes(), ScalarType::Int64, x.device());
  const int64_t numel = x.numel();
  if (numel == 0) return {values, indices};
  const int64_t n = x.dim() == 0 ? 1 : x.sizes()[dim];
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.sizes()[d];
  backend(xc).scan.cum_extreme(xc, values, indices, numel / (n * inner), n, inner, greater);
  return {values, indices};
}

}  // namespace ember
