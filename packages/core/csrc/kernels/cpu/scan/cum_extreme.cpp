#include "cum_extreme.h"

#include <cmath>
#include <type_traits>
#include <vector>

#include "../../../core/parallel.h"
#include "ops.h"  // generated

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

// Rows o in [o0, o1) of x viewed as [outer, n, inner]; best/idx hold one running state per inner.
template <class T>
void scan_rows(const T* x, int64_t* out, int64_t n, int64_t inner, bool greater, int64_t o0, int64_t o1) {
  using C = Cmp<T>;
  std::vector<C> best(static_cast<size_t>(inner));
  std::vector<int64_t> idx(static_cast<size_t>(inner));
  for (int64_t o = o0; o < o1; ++o) {
    const T* xs = x + o * n * inner;
    int64_t* os = out + o * n * inner;
    for (int64_t i = 0; i < inner; ++i) best[i] = static_cast<C>(xs[i]), idx[i] = 0, os[i] = 0;
    for (int64_t j = 1; j < n; ++j) {
      const T* xr = xs + j * inner;
      int64_t* orow = os + j * inner;
      for (int64_t i = 0; i < inner; ++i) {
        const C v = static_cast<C>(xr[i]);
        // later wins ties; a NaN wins, and once the best is NaN only a later NaN replaces it
        const bool wins = is_nan(v) || (!is_nan(best[i]) && (greater ? v >= best[i] : v <= best[i]));
        if (wins) best[i] = v, idx[i] = j;
        orow[i] = idx[i];
      }
    }
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
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n * inner, 1));
    if (numel >= kGrainSize) {
      GilRelease nogil;
      parallel_for(0, outer, grain, [&](int64_t o0, int64_t o1) { scan_rows(px, po, n, inner, greater, o0, o1); });
    } else {
      scan_rows(px, po, n, inner, greater, 0, outer);
    }
  });
  return out;
}

}  // namespace ember
