// Boolean-mask kernels (kernels/backend.h, IndexKernels): counting passes run per chunk in
// parallel, then a prefix sum places each chunk's output (nonzero, masked_select); masked_fill_
// and masked_scatter_ write the masked elements.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/element_walk.h"
#include "kernels/cpu/index/index_kernels.h"

namespace ember::indexing {

void count_true(const Tensor& mask, MaskChunks& c) {
  const bool* m = mask.data<bool>();
  const int64_t n = mask.numel();
  c.n = n;
  int nt = std::max(1, get_num_threads());
  c.chunk = std::max<int64_t>(kGrainSize, (n + nt - 1) / nt);
  int64_t k = (n + c.chunk - 1) / c.chunk;
  std::vector<int64_t> cnt(k, 0);
  parallel_for(0, k, 1, [&](int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      int64_t s = 0, lo = j * c.chunk, hi = std::min(n, lo + c.chunk);
      for (int64_t i = lo; i < hi; ++i) s += m[i];
      cnt[j] = s;
    }
  });
  c.start.resize(k + 1, 0);
  for (int64_t j = 0; j < k; ++j) c.start[j + 1] = c.start[j] + cnt[j];
  c.count = c.start[k];
}

void nonzero(const Tensor& mask, IntArrayRef sizes, const MaskChunks& c, const Tensor& out) {
  const bool* mp = mask.data<bool>();
  int64_t* op = out.data<int64_t>();
  const int64_t nd = static_cast<int64_t>(sizes.size());
  DimVector sz(sizes.begin(), sizes.end());
  int64_t k = static_cast<int64_t>(c.start.size()) - 1;
  parallel_for(0, k, 1, [&](int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      int64_t lo = j * c.chunk, hi = std::min(c.n, lo + c.chunk);
      int64_t* w = op + c.start[j] * nd;
      // Coordinates of `lo`, then advanced like an odometer.
      DimVector coord(nd, 0);
      int64_t rem = lo;
      for (int64_t d = nd - 1; d >= 0; --d) {
        coord[d] = rem % sz[d];
        rem /= sz[d];
      }
      for (int64_t i = lo; i < hi; ++i) {
        if (mp[i]) {
          for (int64_t d = 0; d < nd; ++d) w[d] = coord[d];
          w += nd;
        }
        for (int64_t d = nd - 1; d >= 0; --d) {
          if (++coord[d] < sz[d]) break;
          coord[d] = 0;
        }
      }
    }
  });
}

void masked_select(const Tensor& x, const Tensor& mask, const MaskChunks& c, const Tensor& out) {
  const bool* mp = mask.data<bool>();
  int64_t k = static_cast<int64_t>(c.start.size()) - 1;
  by_itemsize(x.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    const U* xp = x.data<U>();
    U* op = out.data<U>();
    parallel_for(0, k, 1, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        int64_t lo = j * c.chunk, hi = std::min(c.n, lo + c.chunk);
        U* w = op + c.start[j];
        for (int64_t i = lo; i < hi; ++i)
          if (mp[i]) *w++ = xp[i];
      }
    });
  });
}

void masked_fill(const Tensor& dst, const Tensor& mask, const Tensor& value) {
  const bool* mp = mask.data<bool>();
  by_itemsize(dst.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    U val;
    std::memcpy(&val, value.raw(), sizeof(U));
    U* dp = dst.data<U>();
    parallel_for(0, dst.numel(), kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        if (mp[i]) dp[i] = val;
    });
  });
}

// PyTorch only warns for an expanded self (deprecated) and writes through its strides: a
// shared location takes the value when any element on it is masked.
void masked_fill_strided(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const bool* mp = mask.data<bool>();
  const size_t isz = self.itemsize();
  for_each_element(self, [&](int64_t e, const DimVector&, int64_t off) {
    if (mp[e]) std::memcpy(static_cast<char*>(self.storage().data) + static_cast<size_t>(off) * isz, value.raw(), isz);
  });
}

void masked_scatter(const Tensor& dst, const Tensor& mask, const Tensor& src) {
  const bool* mp = mask.data<bool>();
  const int64_t n = mask.numel();
  by_itemsize(dst.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    U* dp = dst.data<U>();
    const U* sp = src.data<U>();
    for (int64_t i = 0, k = 0; i < n; ++i)
      if (mp[i]) dp[i] = sp[k++];
  });
}

}  // namespace ember::indexing
