// softmax / log_softmax along one dim, and their backward passes: checks, dtype, allocation;
// the fused passes are the backend's (kernels/cpu/norm/softmax.cpp). Data is viewed as
// (outer, size, inner), contiguous.
#include <algorithm>

#include "iter/elementwise_iter.h"  // to_dtype
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/nn/nn_fused_backward.h"

namespace ember {

namespace {

struct Geometry {
  int64_t outer = 1, size = 1, inner = 1;
};

Geometry geometry(const Tensor& t, int64_t dim) {
  Geometry g;
  if (t.dim() == 0) return g;
  for (int64_t d = 0; d < dim; ++d) g.outer *= t.sizes()[d];
  g.size = t.sizes()[dim];
  for (int64_t d = dim + 1; d < t.dim(); ++d) g.inner *= t.sizes()[d];
  return g;
}

Tensor softmax_impl(const Tensor& input, int64_t dim0, std::optional<ScalarType> dtype, bool log) {
  int64_t dim = wrap_dim(dim0, std::max<int64_t>(input.dim(), 1));
  Tensor x = dtype && *dtype != input.dtype() ? to_dtype(input, *dtype) : input;
  if (x.numel() == 0) return empty(x.sizes(), x.dtype(), x.device());  // aten returns before its dtype dispatch
  // aten's kernel names: the last dim's kernel, or the general one along another dim
  const bool last = x.dim() == 0 || dim == x.dim() - 1;
  EMBER_CHECK_NOTIMPL(is_floating(x.dtype()), "\"", log ? "log_" : "",
                      last ? "softmax_lastdim_kernel_impl" : "softmax_kernel_impl", "\" not implemented for '",
                      legacy_name(x.dtype()), "'");
  x = contiguous(x, MemoryFormat::Contiguous);
  Geometry g = geometry(x, dim);
  if (log && !last && g.inner == 1 && (x.dtype() == ScalarType::Float16 || x.dtype() == ScalarType::BFloat16)) {
    // Along a dim followed only by size-1 dims aten's general kernel keeps the sum and its log in
    // float (the backend's inner == 1 pass rounds them, as aten's last-dim kernel does): computed in
    // float, each output rounded once.
    Tensor xf = to_dtype(x, ScalarType::Float32);
    Tensor yf = empty(x.sizes(), ScalarType::Float32, x.device());
    backend(x).softmax.forward(xf, yf, g.outer, g.size, g.inner, log);
    return to_dtype(yf, x.dtype());
  }
  Tensor y = empty(x.sizes(), x.dtype(), x.device());
  backend(x).softmax.forward(x, y, g.outer, g.size, g.inner, log);
  return y;
}

}  // namespace

Tensor nn_softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(input, dim, dtype, false);
}

Tensor nn_log_softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(input, dim, dtype, true);
}

namespace nn_kernels {

// softmax: dx = y * (g - sum(g * y));  log_softmax: dx = g - exp(y) * sum(g).
Tensor softmax_backward(const Tensor& grad0, const Tensor& y0, int64_t dim0, bool log) {
  Tensor y = contiguous(y0, MemoryFormat::Contiguous);
  Tensor g = contiguous(grad0.dtype() == y.dtype() ? grad0 : to_dtype(grad0, y.dtype()), MemoryFormat::Contiguous);
  Tensor dx = empty(y.sizes(), y.dtype(), y.device());
  if (y.numel() == 0) return dx;
  int64_t dim = wrap_dim(dim0, std::max<int64_t>(y.dim(), 1));
  Geometry geo = geometry(y, dim);
  backend(y).softmax.backward(y, g, dx, geo.outer, geo.size, geo.inner, log);
  return dx;
}

}  // namespace nn_kernels
}  // namespace ember
