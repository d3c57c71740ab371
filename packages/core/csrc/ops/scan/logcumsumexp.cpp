#include "logcumsumexp.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "ops.h"  // generated
#include "scan_lines.h"

namespace ember {
namespace {

// log(exp(a) + exp(b)) without overflow; a NaN in either propagates, and two equal infinities
// give themselves (their difference would be NaN).
template <class A>
inline A log_add_exp(A a, A b) {
  if (std::isnan(a) || std::isnan(b)) return a + b;
  const A lo = std::min(a, b), hi = std::max(a, b);
  if (lo == hi && !std::isfinite(lo)) return a;
  return hi + std::log1p(std::exp(lo - hi));
}

// Lines (o, i0..i1) of x viewed as [outer, n, inner], accumulated side by side.
template <class T>
void scan_lines(const T* x, T* out, int64_t n, int64_t inner, int64_t o, int64_t i0, int64_t i1) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  A acc[scan::kChunk];
  const T* xs = x + o * n * inner;
  T* os = out + o * n * inner;
  for (int64_t i = i0; i < i1; ++i) acc[i - i0] = static_cast<A>(xs[i]), os[i] = xs[i];
  for (int64_t j = 1; j < n; ++j)
    for (int64_t i = i0; i < i1; ++i) {
      acc[i - i0] = log_add_exp(acc[i - i0], static_cast<A>(xs[j * inner + i]));
      os[j * inner + i] = static_cast<T>(acc[i - i0]);
    }
}

}  // namespace

Tensor logcumsumexp_forward(const Tensor& x, int64_t dim) {
  Tensor xc = contiguous(x, MemoryFormat::Contiguous);
  Tensor out = empty(x.sizes(), x.dtype());
  const int64_t numel = x.numel();
  if (numel == 0) return out;
  const int64_t n = x.dim() == 0 ? 1 : x.sizes()[dim];
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.sizes()[d];
  const int64_t outer = numel / (n * inner);
  EMBER_DISPATCH_FLOAT(xc.dtype(), "logcumsumexp", [&] {
    const scalar_t* px = xc.data<scalar_t>();
    scalar_t* po = out.data<scalar_t>();
    // log1p and exp per element: about 8 copies' worth
    scan::for_lines(outer, n, inner, 8,
                    [&](int64_t o, int64_t i0, int64_t i1) { scan_lines(px, po, n, inner, o, i0, i1); });
  });
  return out;
}

}  // namespace ember
