// sort / argsort / msort along the last dim of contiguous rows (kernels/backend.h,
// SortKernels::sort): LSD radix sort for 4- and 8-byte keys of long rows, else a stable sort of
// (key, index) pairs. Rows in parallel, GIL released. The op bodies are ops/core/sort.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/sort/sort_kernels.h"
#include "kernels/cpu/sort/sort_order.h"

namespace ember::sorting {

namespace {

// Order-preserving unsigned keys for LSD radix sort: NaN maps above +inf, -0.0 to +0.0
// (they compare equal, so a stable sort keeps their order), signed ints get the sign flipped.
template <class scalar_t>
struct RadixKey;
template <>
struct RadixKey<float> {
  using K = uint32_t;
  static K get(float v) {
    if (std::isnan(v)) return ~K(0);
    if (v == 0.0f) v = 0.0f;
    K b;
    std::memcpy(&b, &v, sizeof b);
    return (b >> 31) ? ~b : (b | (K(1) << 31));
  }
};
template <>
struct RadixKey<double> {
  using K = uint64_t;
  static K get(double v) {
    if (std::isnan(v)) return ~K(0);
    if (v == 0.0) v = 0.0;
    K b;
    std::memcpy(&b, &v, sizeof b);
    return (b >> 63) ? ~b : (b | (K(1) << 63));
  }
};
template <>
struct RadixKey<int32_t> {
  using K = uint32_t;
  static K get(int32_t v) { return static_cast<K>(v) ^ (K(1) << 31); }
};
template <>
struct RadixKey<int64_t> {
  using K = uint64_t;
  static K get(int64_t v) { return static_cast<K>(v) ^ (K(1) << 63); }
};

template <>
struct RadixKey<uint32_t> {
  using K = uint32_t;
  static K get(uint32_t v) { return v; }
};
template <>
struct RadixKey<uint64_t> {
  using K = uint64_t;
  static K get(uint64_t v) { return v; }
};

// Stable LSD radix sort of one row, 8 bits a pass (passes where every key shares the byte
// are skipped). `idx` receives the sorted order; the buffers are reused across rows.
template <class scalar_t>
void radix_row(const scalar_t* s, int64_t n, bool descending, int64_t* idx,
               std::vector<typename RadixKey<scalar_t>::K>& k0, std::vector<typename RadixKey<scalar_t>::K>& k1,
               std::vector<int64_t>& i1) {
  using K = typename RadixKey<scalar_t>::K;
  k0.resize(static_cast<size_t>(n));
  k1.resize(static_cast<size_t>(n));
  i1.resize(static_cast<size_t>(n));
  K flip = descending ? ~K(0) : K(0);
  for (int64_t i = 0; i < n; ++i) {
    k0[i] = RadixKey<scalar_t>::get(s[i]) ^ flip;
    idx[i] = i;
  }
  K* ka = k0.data();
  K* kb = k1.data();
  int64_t* ia = idx;
  int64_t* ib = i1.data();
  for (size_t shift = 0; shift < sizeof(K) * 8; shift += 8) {
    int64_t count[256] = {0};
    for (int64_t i = 0; i < n; ++i) ++count[(ka[i] >> shift) & 0xff];
    if (count[(ka[0] >> shift) & 0xff] == n) continue;  // all keys share this byte
    int64_t at = 0;
    for (int64_t& c : count) {
      int64_t t = c;
      c = at;
      at += t;
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t p = count[(ka[i] >> shift) & 0xff]++;
      kb[p] = ka[i];
      ib[p] = ia[i];
    }
    std::swap(ka, kb);
    std::swap(ia, ib);
  }
  if (ia != idx) std::memcpy(idx, ia, static_cast<size_t>(n) * sizeof(int64_t));
}

template <class scalar_t>
constexpr bool kRadix =
    std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double> || std::is_same_v<scalar_t, int32_t> ||
    std::is_same_v<scalar_t, int64_t> || std::is_same_v<scalar_t, uint32_t> || std::is_same_v<scalar_t, uint64_t>;

template <class scalar_t>
void sort_rows_of(const Tensor& x, int64_t rows, int64_t n, const Tensor& values, const Tensor& indices,
                  bool descending) {
  using V = Key<scalar_t>;
  const scalar_t* src = x.template data<scalar_t>();
  scalar_t* vo = values.template data<scalar_t>();
  int64_t* io = indices.template data<int64_t>();
  GilRelease nogil;
  if constexpr (kRadix<scalar_t>) {
    if (n >= 64) {
      parallel_for(0, rows, row_grain(n), [&](int64_t b, int64_t e) {
        std::vector<typename RadixKey<scalar_t>::K> k0, k1;
        std::vector<int64_t> i1;
        for (int64_t r = b; r < e; ++r) {
          const scalar_t* s = src + r * n;
          int64_t* ir = io + r * n;
          radix_row(s, n, descending, ir, k0, k1, i1);
          scalar_t* vr = vo + r * n;
          for (int64_t i = 0; i < n; ++i) vr[i] = s[ir[i]];
        }
      });
      return;
    }
  }
  parallel_for(0, rows, row_grain(n), [&](int64_t b, int64_t e) {
    std::vector<std::pair<V, int64_t>> buf(static_cast<size_t>(n));
    for (int64_t r = b; r < e; ++r) {
      const scalar_t* s = src + r * n;
      for (int64_t i = 0; i < n; ++i) buf[i] = {static_cast<V>(s[i]), i};
      if (descending) {
        std::stable_sort(buf.begin(), buf.end(),
                         [](const auto& a, const auto& c) { return Greater<V>()(a.first, c.first); });
      } else {
        std::stable_sort(buf.begin(), buf.end(),
                         [](const auto& a, const auto& c) { return Less<V>()(a.first, c.first); });
      }
      for (int64_t i = 0; i < n; ++i) {
        vo[r * n + i] = s[buf[i].second];
        io[r * n + i] = buf[i].second;
      }
    }
  });
}

}  // namespace

void sort_rows(const Tensor& x, int64_t rows, int64_t n, bool descending, const Tensor& values, const Tensor& indices) {
  EMBER_DISPATCH_ALL_AND_UINT(x.dtype(), "sort",
                              [&] { sort_rows_of<scalar_t>(x, rows, n, values, indices, descending); });
}

}  // namespace ember::sorting
