#include "cum_extreme.h"

#include <cmath>
#include <type_traits>

#include "ops.h"  // generated
#include "scan_lines.h"

namespace ember {
namespace {

// Half types compare as float; everything else as itself.
template <class T>
using Cmp = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T>
inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

// Lines (o, i0..i1) of x viewed as [outer, n, inner], walked side by side.
template <class T>
void scan_lines(const T* x, int64_t* out, int64_t n, int64_t inner, bool greater, int64_t o, int64_t i0, int64_t i1) {
  using C = Cmp<T>;
  C best[scan::kChunk];
  int64_t idx[scan::kChunk];
  const T* xs = x + o * n * inner;
  int64_t* os = out + o * n * inner;
  for (int64_t i = i0; i < i1; ++i) best[i - i0] = static_cast<C>(xs[i]), idx[i - i0] = 0, os[i] = 0;
  for (int64_t j = 1; j < n; ++j)
    for (int64_t i = i0; i < i1; ++i) {
      const C v = static_cast<C>(xs[j * inner + i]);
      C& b = best[i - i0];
      // later wins ties; a NaN wins, and once the best is NaN only a later NaN replaces it
      if (is_nan(v) || (!is_nan(b) && (greater ? v >= b : v <= b))) b = v, idx[i - i0] = j;
      os[j * inner + i] = idx[i - i0];
    }
}

}  // namespace

Tensor cum_extreme_indices(const Tensor& x, int64_t dim, bool greater) {
  Tensor xc = contiguous(x, MemoryFormat::Contiguous);
  Tensor out = empty(x.sizes(), ScalarType::Int64);
  const int64_t numel = x.numel();
  if (numel == 0) return out;
  const int64_t n = x.dim() == 0 ? 1 : x.sizes()[dim];
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.sizes()[d];
  const int64_t outer = numel / (n * inner);
  int64_t* po = out.data<int64_t>();
  EMBER_DISPATCH_ALL(xc.dtype(), greater ? "cummax" : "cummin", [&] {
    const scalar_t* px = xc.data<scalar_t>();
    scan::for_lines(outer, n, inner, 1,
                    [&](int64_t o, int64_t i0, int64_t i1) { scan_lines(px, po, n, inner, greater, o, i0, i1); });
  });
  return out;
}

}  // namespace ember
