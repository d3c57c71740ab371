// Selection along the last dim of contiguous rows (kernels/backend.h, SortKernels): topk and
// one value per row (kthvalue, median, nanmedian, mode), each by aten's own algorithm so ties
// resolve to aten's indices. Rows in parallel, GIL released. The op bodies are ops/core/sort.cpp.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/sort/sort_kernels.h"
#include "kernels/cpu/sort/sort_order.h"

namespace ember::sorting {

namespace {

// aten's selection, call for call: the same standard algorithms on the same (value, index)
// sequence with the same comparator, so that tied values come out with aten's indices (which
// tie wins is up to the algorithm, not a rule). k * 64 <= n: a partial sort of the row; else
// nth_element at k - 1, then (sorted) a sort of the k - 1 before it.
template <class scalar_t>
void topk_rows_of(const Tensor& x, int64_t rows, int64_t n, int64_t k, bool largest, bool sorted, const Tensor& values,
                  const Tensor& indices) {
  using P = std::pair<Key<scalar_t>, int64_t>;
  const scalar_t* src = x.template data<scalar_t>();
  scalar_t* vo = values.template data<scalar_t>();
  int64_t* io = indices.template data<int64_t>();
  GilRelease nogil;
  parallel_for(0, rows, row_grain(n), [&](int64_t b, int64_t e) {
    std::vector<P> q(static_cast<size_t>(n));
    auto run = [&](auto cmp) {
      for (int64_t r = b; r < e; ++r) {
        const scalar_t* s = src + r * n;
        for (int64_t i = 0; i < n; ++i) q[i] = {static_cast<Key<scalar_t>>(s[i]), i};
        if (k * 64 <= n) {
          std::partial_sort(q.begin(), q.begin() + k, q.end(), cmp);
        } else {
          std::nth_element(q.begin(), q.begin() + (k - 1), q.end(), cmp);
          if (sorted) std::sort(q.begin(), q.begin() + (k - 1), cmp);
        }
        for (int64_t i = 0; i < k; ++i) {
          vo[r * k + i] = static_cast<scalar_t>(q[i].first);
          io[r * k + i] = q[i].second;
        }
      }
    };
    if (largest) run([](const P& a, const P& c) { return Greater<Key<scalar_t>>()(a.first, c.first); });
    else run([](const P& a, const P& c) { return Less<Key<scalar_t>>()(a.first, c.first); });
  });
}

// Median-of-three quickselect (Numerical Recipes' `select`), NaN as the largest value: the
// selection scheme PyTorch's kthvalue uses, so equal values yield the same index. Returns
// the original index of the k-th smallest (0-based).
template <class V>
int64_t quick_select(std::vector<std::pair<V, int64_t>>& a, int64_t k) {
  auto gt = [](V x, V y) { return Greater<V>()(x, y) && !(is_nan(x) && is_nan(y)); };
  int64_t L = 0, R = static_cast<int64_t>(a.size()) - 1;
  while (true) {
    if (R <= L) break;
    if (R == L + 1) {
      if (gt(a[L].first, a[R].first)) std::swap(a[L], a[R]);
      break;
    }
    int64_t P = L + (R - L) / 2;
    std::swap(a[P], a[L + 1]);
    if (gt(a[L + 1].first, a[R].first)) std::swap(a[L + 1], a[R]);
    if (gt(a[L].first, a[R].first)) std::swap(a[L], a[R]);
    if (gt(a[L + 1].first, a[L].first)) std::swap(a[L + 1], a[L]);
    int64_t i = L + 1, j = R;
    V piv = a[L].first;
    while (true) {
      do ++i;
      while (gt(piv, a[i].first));
      do --j;
      while (gt(a[j].first, piv));
      if (j < i) break;
      std::swap(a[i], a[j]);
    }
    std::swap(a[L], a[j]);
    if (j <= k) L = i;
    if (j >= k) R = j - 1;
  }
  return a[k].second;
}

template <class scalar_t>
void select_rows_of(const Tensor& x, int64_t rows, int64_t n, SelectKind what, int64_t k, const Tensor& values,
                    const Tensor& indices) {
  using V = Key<scalar_t>;
  const scalar_t* src = x.template data<scalar_t>();
  scalar_t* vo = values.template data<scalar_t>();
  int64_t* io = indices.template data<int64_t>();
  GilRelease nogil;
  parallel_for(0, rows, row_grain(n), [&](int64_t b, int64_t e) {
    std::vector<std::pair<V, int64_t>> buf(static_cast<size_t>(n));
    for (int64_t r = b; r < e; ++r) {
      const scalar_t* s = src + r * n;
      int64_t first_nan = -1, nans = 0;
      for (int64_t i = 0; i < n; ++i) {
        buf[i] = {static_cast<V>(s[i]), i};
        if (is_nan(buf[i].first)) {
          if (first_nan < 0) first_nan = i;
          ++nans;
        }
      }
      int64_t pick = -1;
      if (what == SelectKind::Mode) {
        // PyTorch's tie rules follow from an unstable sort with plain `<` then a scan for the
        // longest run (the first longest, reporting its last element): the same sort and scan
        // give the same picks, NaN included (each NaN is a run of its own).
        std::sort(buf.begin(), buf.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
        int64_t best = 0, run = 0;
        for (int64_t i = 0; i < n; ++i) {
          ++run;
          if (i == n - 1 || buf[i].first != buf[i + 1].first) {
            if (run > best) {
              best = run;
              pick = buf[i].second;
            }
            run = 0;
          }
        }
      } else if (what == SelectKind::Median && nans > 0) {
        pick = first_nan;
      } else if (what == SelectKind::NanMedian && nans == n) {
        pick = first_nan;
      } else if (what == SelectKind::Kth) {
        pick = quick_select(buf, k - 1);
      } else {
        // Median: the k-th in (value, index) order, so ties resolve to a fixed index.
        int64_t kk = ((what == SelectKind::NanMedian ? n - nans : n) - 1) / 2;
        std::nth_element(buf.begin(), buf.begin() + kk, buf.end(), [](const auto& a, const auto& c) {
          return Less<V>()(a.first, c.first) || (!Less<V>()(c.first, a.first) && a.second < c.second);
        });
        pick = buf[kk].second;
      }
      vo[r] = s[pick];
      io[r] = pick;
    }
  });
}

}  // namespace

void topk_rows(const Tensor& x, int64_t rows, int64_t n, int64_t k, bool largest, bool sorted, const Tensor& values,
               const Tensor& indices) {
  EMBER_DISPATCH_ALL(x.dtype(), "topk",
                     [&] { topk_rows_of<scalar_t>(x, rows, n, k, largest, sorted, values, indices); });
}

void select_rows(const Tensor& x, int64_t rows, int64_t n, SelectKind what, int64_t k, const char* name,
                 const Tensor& values, const Tensor& indices) {
  EMBER_DISPATCH_ALL(x.dtype(), name, [&] { select_rows_of<scalar_t>(x, rows, n, what, k, values, indices); });
}

}  // namespace ember::sorting
