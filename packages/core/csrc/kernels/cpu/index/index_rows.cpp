// Whole slices moved along one dim (index_select, index_copy, index_add, index_fill) and the
// flat take / put_ (kernels/backend.h, IndexKernels).
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/cpu/index/index_kernels.h"

namespace ember::indexing {

namespace {

// [outer, n, inner] view sizes of a contiguous tensor around dim.
std::array<int64_t, 3> split3(const Tensor& t, int64_t dim) {
  DimVector s = sizes1(t);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= s[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(s.size()); ++d) inner *= s[d];
  return {outer, s[dim], inner};
}

// Calls f(std::integral_constant<int64_t, B>) with B = row bytes for the common short
// rows, B = 0 (size known only at run time) otherwise.
template <typename F>
bool by_row_bytes(int64_t row, const F& f) {
  switch (row) {
    case 4:
      return f(std::integral_constant<int64_t, 4>{});
    case 8:
      return f(std::integral_constant<int64_t, 8>{});
    case 16:
      return f(std::integral_constant<int64_t, 16>{});
    case 32:
      return f(std::integral_constant<int64_t, 32>{});
    case 64:
      return f(std::integral_constant<int64_t, 64>{});
    case 128:
      return f(std::integral_constant<int64_t, 128>{});
    default:
      return f(std::integral_constant<int64_t, 0>{});
  }
}

// Output rows [b, e): row r is source row index[r % m] of block r / m. Returns false when
// an index is out of range (that row is skipped, never read; the caller raises).
template <int64_t kBytes>
bool copy_selected_rows(const char* src, const int64_t* ip, int64_t m, int64_t n, int64_t size, int64_t row, int64_t b,
                        int64_t e, char* dst) {
  const int64_t bytes = kBytes ? kBytes : row;
  // Source rows are random reads: prefetch a few rows ahead to overlap their misses.
  // The block/index pairs are stepped, not divided, per row.
  constexpr int64_t kAhead = 8;
  bool ok = true;
  int64_t o = b / m, i = b % m, oa = (b + kAhead) / m, ia = (b + kAhead) % m;
  for (int64_t r = b; r < e; ++r, dst += bytes) {
    if (r + kAhead < e) {
      // Address arithmetic on integers: an out-of-range index is never a pointer.
      __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(src) +
                                                       static_cast<uintptr_t>((oa * n + ip[ia]) * bytes)));
    }
    const int64_t v = ip[i];
    if (static_cast<uint64_t>(v) < static_cast<uint64_t>(size)) std::memcpy(dst, src + (o * n + v) * bytes, bytes);
    else ok = false;
    if (++i == m) i = 0, ++o;
    if (++ia == m) ia = 0, ++oa;
  }
  return ok;
}

}  // namespace

// Bounds are checked inside the copy (a bad row is skipped, never read); the op raises.
bool select_rows(const Tensor& x, int64_t d, const Tensor& idx, const Tensor& dst, const IndexCheck&) {
  auto [outer, n, inner] = split3(x, d);
  const int64_t m = idx.numel(), size = n;
  const int64_t* ip = idx.data<int64_t>();
  std::atomic<bool> bad{false};
  const int64_t row = inner * static_cast<int64_t>(x.itemsize());
  const char* sp = x.raw();
  char* dp = dst.raw();
  int64_t rows = outer * m;
  {
    GilRelease nogil;
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(inner, 1)), [&](int64_t b, int64_t e) {
      // Short rows are copied with a fixed-size memcpy the compiler inlines: a libc call per
      // 64-byte row costs as much as the copy itself.
      bool ok = by_row_bytes(row, [&](auto kb) {
        return copy_selected_rows<decltype(kb)::value>(sp, ip, m, n, size, row, b, e, dp + b * row);
      });
      if (!ok) bad = true;
    });
  }
  return !bad;
}

// dst (contiguous) [o, idx[i], :] = src (contiguous) [o, i, :]
void copy_rows(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& src, const IndexCheck&) {
  auto [outer, n, inner] = split3(dst, dim);
  int64_t m = idx.numel();
  const int64_t* ip = idx.data<int64_t>();
  size_t isz = dst.itemsize();
  const char* sp = src.raw();
  char* dp = dst.raw();
  parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(m * inner, 1)), [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o)
      for (int64_t i = 0; i < m; ++i)
        std::memcpy(dp + ((o * n + ip[i]) * inner) * isz, sp + ((o * m + i) * inner) * isz, inner * isz);
  });
}

// dst (contiguous) [o, idx[i], :] += alpha * src (contiguous) [o, i, :]
void add_rows(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& src, const Scalar& alpha,
              const IndexCheck&) {
  auto [outer, n, inner] = split3(dst, dim);
  int64_t m = idx.numel();
  const int64_t* ip = idx.data<int64_t>();
  EMBER_DISPATCH_ALL_AND_COMPLEX(dst.dtype(), "index_add", [&] {
    using acc = opmath_t<scalar_t>;
    acc a = alpha.to<acc>();
    scalar_t* dp = dst.data<scalar_t>();
    const scalar_t* sp = src.data<scalar_t>();
    const bool unit = a == acc(1);
    if (inner == 1) {
      // one element per index (the last dim, pad's backward): no inner loop to set up per index,
      // which made this case 2.5x slower than the plain loop
      parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(m, 1)), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          scalar_t* d = dp + o * n;
          const scalar_t* x = sp + o * m;
          if (unit)
            for (int64_t i = 0; i < m; ++i) d[ip[i]] = static_cast<scalar_t>(acc(d[ip[i]]) + acc(x[i]));
          else
            for (int64_t i = 0; i < m; ++i) d[ip[i]] = static_cast<scalar_t>(acc(d[ip[i]]) + a * acc(x[i]));
        }
      });
      return;
    }
    // Parallel over outer positions and bands of up to kBand inner ones; each band walks the index
    // in order (duplicate indices accumulate without races) over contiguous runs of its rows.
    constexpr int64_t kBand = 256;
    const int64_t bands = (inner + kBand - 1) / kBand, lines = outer * bands;
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(m * std::min(inner, kBand), 1));
    parallel_for(0, lines, grain, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const int64_t o = p / bands, k0 = (p % bands) * kBand, k1 = std::min(inner, k0 + kBand);
        for (int64_t i = 0; i < m; ++i) {
          scalar_t* d = dp + (o * n + ip[i]) * inner;
          const scalar_t* x = sp + (o * m + i) * inner;
          if (unit)  // alpha 1 (aten's accumulating index_put path): no product
            for (int64_t k = k0; k < k1; ++k) d[k] = static_cast<scalar_t>(acc(d[k]) + acc(x[k]));
          else
            for (int64_t k = k0; k < k1; ++k) d[k] = static_cast<scalar_t>(acc(d[k]) + a * acc(x[k]));
        }
      }
    });
  });
}

void fill_rows(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& value, const IndexCheck&) {
  auto [outer, n, inner] = split3(dst, dim);
  int64_t m = idx.numel();
  const int64_t* ip = idx.data<int64_t>();
  by_itemsize(dst.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    U val;
    std::memcpy(&val, value.raw(), sizeof(U));
    U* dp = dst.data<U>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < m; ++i) std::fill(dp + (o * n + ip[i]) * inner, dp + (o * n + ip[i] + 1) * inner, val);
  });
}

void take(const Tensor& x, const Tensor& idx, const Tensor& out, const IndexCheck&) {
  int64_t n = x.numel(), m = idx.numel();
  const int64_t* ip = idx.data<int64_t>();
  by_itemsize(x.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    const U* xp = x.data<U>();
    U* op = out.data<U>();
    parallel_for(0, m, kGrainSize, [&](int64_t b, int64_t e) {
      // random reads from a large source: prefetch 32 ahead, past what the out-of-order window
      // keeps in flight (1M of 16M floats: 15% less time). The indices are checked already.
      constexpr int64_t kAhead = 32;
      for (int64_t i = b; i < e; ++i) {
        if (i + kAhead < e) {
          const int64_t j = ip[i + kAhead];
          __builtin_prefetch(xp + (j < 0 ? j + n : j));
        }
        op[i] = xp[ip[i] < 0 ? ip[i] + n : ip[i]];
      }
    });
  });
}

void put(const Tensor& dst, const Tensor& idx, const Tensor& src, bool accumulate, const IndexCheck&) {
  int64_t n = dst.numel(), m = idx.numel();
  const int64_t* ip = idx.data<int64_t>();
  EMBER_DISPATCH_ALL_AND_COMPLEX(dst.dtype(), "put_", [&] {
    using acc = opmath_t<scalar_t>;
    scalar_t* dp = dst.data<scalar_t>();
    const scalar_t* sp = src.data<scalar_t>();
    for (int64_t i = 0; i < m; ++i) {
      scalar_t& d = dp[ip[i] < 0 ? ip[i] + n : ip[i]];
      d = accumulate ? static_cast<scalar_t>(acc(d) + acc(sp[i])) : sp[i];
    }
  });
}

}  // namespace ember::indexing
