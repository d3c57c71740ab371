// sort, topk and the one-per-row selections on the GPU (kernels/backend.h, SortKernels), with the
// CPU kernels' answers (kernels/cpu/sort): rows are ordered as (key, index) pairs -- the op-math
// key, NaN the largest, ties by index -- a strict total order, so any sorting network gives the
// stable sort the CPU's radix and std::stable_sort give.
//
// A row is cut into tiles of up to 4096 elements, each sorted by one block in shared memory (a
// bitonic network, padded to a power of two); rows longer than a tile then take merge passes in
// global memory, each doubling the sorted runs: every element finds its place in the merged run
// from its own rank plus a binary search of the other run (no ties, so no two land together).
// topk takes the first k of the sort; median / nanmedian / mode scan the sorted rows; kthvalue
// runs the CPU's quickselect itself (a thread per row), so tied values give the CPU's index --
// but for a few very long rows, which take the k-th of the sort.
#include <cstdint>
#include <type_traits>

#include "kernels/cuda/device_scratch.h"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/cuda/sort_kernels.h"

namespace ember::cuda {

namespace {

constexpr int64_t kTile = 4096;           // elements a block sorts in shared memory
constexpr int kSortThreads = 512;         // the most threads a tile's block runs
constexpr size_t kShared = 48 * 1024;     // a block's shared memory without opting in
constexpr int64_t kSelectBySort = 32768;  // kthvalue's rows longer than this, when few, take the sort

template <class K>
__device__ __forceinline__ bool key_nan(K v) {
  if constexpr (std::is_floating_point_v<K>) return v != v;
  return false;
}
// Key a strictly before key b (ascending: NaN last; descending: NaN first); equal keys (two
// NaNs, -0 and 0) neither way.
template <class K>
__device__ __forceinline__ bool key_before(K a, K b, bool desc) {
  const bool an = key_nan(a), bn = key_nan(b);
  if (desc) return (an && !bn) || a > b;
  return (!an && bn) || a < b;
}
template <class K>
__device__ __forceinline__ bool before(K a, int64_t ia, K b, int64_t ib, bool desc) {
  if (key_before(a, b, desc)) return true;
  if (key_before(b, a, desc)) return false;
  return ia < ib;
}

// Tiles of `tile` (a power of two) elements of each row sorted into order (row-relative indices)
// and their keys, side by side. Launched with up to kSortThreads threads: the bound keeps its
// registers within what a block that size may have (else the launch fails on the device).
template <class T>
__global__ void __launch_bounds__(kSortThreads) tile_sort(const T* x, int64_t* order, opmath_t<T>* sorted_keys,
                                                          int64_t rows, int64_t n, int tile, int64_t tiles, bool desc) {
  using K = opmath_t<T>;
  extern __shared__ __align__(16) unsigned char smem[];
  K* keys = reinterpret_cast<K*>(smem);
  int* pos = reinterpret_cast<int*>(smem + ((tile * sizeof(K) + 3) & ~size_t(3)));  // -1: padding, last
  auto precedes = [&](int a, int b) {
    if (pos[b] < 0) return pos[a] >= 0;
    if (pos[a] < 0) return false;
    return before(keys[a], pos[a], keys[b], pos[b], desc);
  };
  for (int64_t blk = blockIdx.x; blk < rows * tiles; blk += gridDim.x) {
    const int64_t r = blk / tiles, t0 = (blk % tiles) * tile;
    const int count = static_cast<int>(n - t0 < tile ? n - t0 : tile);
    const T* xr = x + r * n + t0;
    for (int p = threadIdx.x; p < tile; p += blockDim.x) {
      keys[p] = p < count ? static_cast<K>(xr[p]) : K();
      pos[p] = p < count ? p : -1;
    }
    __syncthreads();
    for (int size = 2; size <= tile; size <<= 1) {
      for (int stride = size >> 1; stride > 0; stride >>= 1) {
        for (int q = threadIdx.x; q < tile / 2; q += blockDim.x) {
          const int lo = 2 * stride * (q / stride) + q % stride, hi = lo + stride;
          const bool up = (lo & size) == 0;  // this segment ascends (in the sort's order)
          if (up ? precedes(hi, lo) : precedes(lo, hi)) {
            const K k = keys[lo];
            keys[lo] = keys[hi];
            keys[hi] = k;
            const int p = pos[lo];
            pos[lo] = pos[hi];
            pos[hi] = p;
          }
        }
        __syncthreads();
      }
    }
    for (int p = threadIdx.x; p < count; p += blockDim.x) {
      order[r * n + t0 + p] = t0 + pos[p];
      sorted_keys[r * n + t0 + p] = keys[p];
    }
    __syncthreads();  // the shared arrays are reused by the next tile
  }
}

// Sorted runs of w (indices and keys in src, sk) merged pairwise into runs of 2w (in dst, dk);
// the binary searches read the keys within the runs, not through the indices.
template <class K>
__global__ void merge_pass(const int64_t* src, const K* sk, int64_t* dst, K* dk, int64_t rows, int64_t n, int64_t w,
                           bool desc) {
  const int64_t total = rows * n, step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t r = e / n, p = e % n;
    const int64_t* sr = src + r * n;
    const K* kr = sk + r * n;
    const int64_t start = p - p % (2 * w);
    const bool left = p < start + w;
    const int64_t own0 = left ? start : start + w, other0 = left ? start + w : start;
    const int64_t right_end = start + 2 * w < n ? start + 2 * w : n;
    const int64_t other_len = left ? (right_end > start + w ? right_end - start - w : 0) : w;
    const int64_t i = sr[p];
    const K key = kr[p];
    int64_t lo = 0, hi = other_len;  // how many of the other run come before this element
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (before(kr[other0 + mid], sr[other0 + mid], key, i, desc)) lo = mid + 1;
      else hi = mid;
    }
    const int64_t at = r * n + start + (p - own0) + lo;
    dst[at] = i;
    dk[at] = key;
  }
}

// The first k of each sorted row: values from x, indices as they are.
template <class T>
__global__ void take_sorted(const T* x, const int64_t* order, int64_t rows, int64_t n, int64_t k, T* values,
                            int64_t* indices) {
  const int64_t total = rows * k, step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t r = e / k, i = order[r * n + e % k];
    values[e] = x[r * n + i];
    indices[e] = i;
  }
}

// Two buffers of rows * n (index, key) pairs for the passes to ping-pong between.
template <class K>
class SortScratch {
 public:
  SortScratch(int64_t count, int device)
      : count_(count), mem_(size_t(count) * 2 * (sizeof(int64_t) + sizeof(K)), device) {}
  int64_t* idx(int which) const { return mem_.as<int64_t>() + which * count_; }
  K* keys(int which) const { return reinterpret_cast<K*>(mem_.as<int64_t>() + 2 * count_) + which * count_; }

 private:
  int64_t count_;
  Scratch mem_;
};

// Each row's order (rows * n row-relative indices, in s); returns the buffer holding it.
template <class T>
const int64_t* sort_order(const T* x, int64_t rows, int64_t n, bool desc, const SortScratch<opmath_t<T>>& s) {
  using K = opmath_t<T>;
  int64_t tile = 1;
  while (tile < n && tile < kTile) tile <<= 1;
  const int64_t tiles = (n + tile - 1) / tile;
  const size_t shared = ((tile * sizeof(K) + 3) & ~size_t(3)) + tile * sizeof(int);
  static_assert(((kTile * sizeof(K) + 3) & ~size_t(3)) + kTile * sizeof(int) <= kShared, "a tile fits");
  const int threads = static_cast<int>(tile / 2 < 32 ? 32 : tile / 2 > kSortThreads ? kSortThreads : tile / 2);
  tile_sort<T><<<capped_blocks(rows * tiles), threads, shared, current_stream(-1)>>>(
      x, s.idx(0), s.keys(0), rows, n, static_cast<int>(tile), tiles, desc);
  check_launch("sort (tiles)");
  int cur = 0;
  for (int64_t w = tile; w < n; w *= 2, cur ^= 1) {
    merge_pass<K><<<grid_for(rows * n), 256, 0, current_stream(-1)>>>(s.idx(cur), s.keys(cur), s.idx(cur ^ 1),
                                                                      s.keys(cur ^ 1), rows, n, w, desc);
    check_launch("sort (merge)");
  }
  return s.idx(cur);
}

// Sorted rows (ascending) to one pick per row: median, nanmedian (NaNs are the sorted suffix; the
// first NaN in index order comes first among them) or mode (the first of the longest runs of
// equal keys, reported by the last, so the largest, index of it).
template <class T>
__global__ void pick_sorted(const T* x, const int64_t* order, int64_t rows, int64_t n, SelectKind what, T* values,
                            int64_t* indices) {
  using K = opmath_t<T>;
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += step) {
    const T* xr = x + r * n;
    const int64_t* o = order + r * n;
    auto key = [&](int64_t j) { return static_cast<K>(xr[o[j]]); };
    int64_t pick = o[0];
    if (what == SelectKind::Mode) {
      int64_t best = 0, run = 0;
      for (int64_t j = 0; j < n; ++j) {
        ++run;
        if (j == n - 1 || key(j) != key(j + 1)) {
          if (run > best) best = run, pick = o[j];
          run = 0;
        }
      }
    } else {
      int64_t lo = 0, hi = n;  // the first NaN's place
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (key_nan(key(mid))) hi = mid;
        else lo = mid + 1;
      }
      const int64_t nans = n - lo;
      if (what == SelectKind::Median) pick = nans > 0 ? o[n - nans] : o[(n - 1) / 2];
      else pick = nans == n ? o[0] : o[(n - nans - 1) / 2];
    }
    values[r] = xr[pick];
    indices[r] = pick;
  }
}

template <class T>
__global__ void fill_pairs(const T* x, opmath_t<T>* keys, int64_t* idx, int64_t total, int64_t n) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    keys[e] = static_cast<opmath_t<T>>(x[e]);
    idx[e] = e % n;
  }
}

// kthvalue: the CPU's median-of-three quickselect (Numerical Recipes' `select`, NaN the largest),
// step for step on the row's (key, index) pairs, so tied values give the same index.
template <class T>
__global__ void quick_select(const T* x, opmath_t<T>* keys, int64_t* idx, int64_t rows, int64_t n, int64_t k, T* values,
                             int64_t* indices) {
  using K = opmath_t<T>;
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += step) {
    K* a = keys + r * n;
    int64_t* ai = idx + r * n;
    auto gt = [](K u, K v) { return key_before(u, v, true); };
    auto swap = [&](int64_t u, int64_t v) {
      const K t = a[u];
      a[u] = a[v];
      a[v] = t;
      const int64_t ti = ai[u];
      ai[u] = ai[v];
      ai[v] = ti;
    };
    int64_t L = 0, R = n - 1;
    while (R > L) {
      if (R == L + 1) {
        if (gt(a[L], a[R])) swap(L, R);
        break;
      }
      const int64_t P = L + (R - L) / 2;
      swap(P, L + 1);
      if (gt(a[L + 1], a[R])) swap(L + 1, R);
      if (gt(a[L], a[R])) swap(L, R);
      if (gt(a[L + 1], a[L])) swap(L + 1, L);
      int64_t i = L + 1, j = R;
      const K piv = a[L];
      while (true) {
        do ++i;
        while (gt(piv, a[i]));
        do --j;
        while (gt(a[j], piv));
        if (j < i) break;
        swap(i, j);
      }
      swap(L, j);
      if (j <= k) L = i;
      if (j >= k) R = j - 1;
    }
    const int64_t pick = ai[k];
    values[r] = x[r * n + pick];
    indices[r] = pick;
  }
}

}  // namespace

void sort(const Tensor& x, int64_t rows, int64_t n, bool descending, const Tensor& values, const Tensor& indices) {
  if (rows * n == 0) return;
  const int device = x.device().index;
  const LaunchDevice on(device);
  EMBER_DISPATCH_ALL_AND_UINT(x.dtype(), "sort", [&] {
    const SortScratch<opmath_t<scalar_t>> scratch(rows * n, device);
    const scalar_t* px = x.data<scalar_t>();
    const int64_t* order = sort_order(px, rows, n, descending, scratch);
    take_sorted<scalar_t><<<grid_for(rows * n), 256, 0, current_stream(-1)>>>(
        px, order, rows, n, n, values.data<scalar_t>(), indices.data<int64_t>());
  });
  check_launch("sort");
}

// Always sorted: `sorted=False` leaves the order to the implementation.
void topk(const Tensor& x, int64_t rows, int64_t n, int64_t k, bool largest, bool, const Tensor& values,
          const Tensor& indices) {
  if (rows * k == 0) return;
  const int device = x.device().index;
  const LaunchDevice on(device);
  EMBER_DISPATCH_ALL(x.dtype(), "topk", [&] {
    const SortScratch<opmath_t<scalar_t>> scratch(rows * n, device);
    const scalar_t* px = x.data<scalar_t>();
    const int64_t* order = sort_order(px, rows, n, largest, scratch);
    take_sorted<scalar_t><<<grid_for(rows * k), 256, 0, current_stream(-1)>>>(
        px, order, rows, n, k, values.data<scalar_t>(), indices.data<int64_t>());
  });
  check_launch("topk");
}

void select(const Tensor& x, int64_t rows, int64_t n, SelectKind what, int64_t k, const char* name,
            const Tensor& values, const Tensor& indices) {
  if (rows * n == 0) return;
  const int device = x.device().index;
  const LaunchDevice on(device);
  EMBER_DISPATCH_ALL(x.dtype(), name, [&] {
    using K = opmath_t<scalar_t>;
    const scalar_t* px = x.data<scalar_t>();
    scalar_t* pv = values.data<scalar_t>();
    int64_t* pi = indices.data<int64_t>();
    if (what == SelectKind::Kth && n > kSelectBySort && rows < 128) {
      // few long rows: a thread's quickselect each would run alone; the k-th of the parallel sort
      // instead (tied values then give the stable order's index, not the quickselect's)
      const SortScratch<K> scratch(rows * n, device);
      const int64_t* order = sort_order(px, rows, n, false, scratch);
      take_sorted<scalar_t><<<grid_for(rows), 256, 0, current_stream(-1)>>>(px, order + (k - 1), rows, n, 1, pv, pi);
      return;
    }
    if (what == SelectKind::Kth) {
      const Scratch keys(size_t(rows * n) * sizeof(K), device), idx(size_t(rows * n) * sizeof(int64_t), device);
      fill_pairs<scalar_t>
          <<<grid_for(rows * n), 256, 0, current_stream(-1)>>>(px, keys.as<K>(), idx.as<int64_t>(), rows * n, n);
      quick_select<scalar_t>
          <<<grid_for(rows), 128, 0, current_stream(-1)>>>(px, keys.as<K>(), idx.as<int64_t>(), rows, n, k - 1, pv, pi);
      return;
    }
    const SortScratch<opmath_t<scalar_t>> scratch(rows * n, device);
    const int64_t* order = sort_order(px, rows, n, false, scratch);
    pick_sorted<scalar_t><<<grid_for(rows), 256, 0, current_stream(-1)>>>(px, order, rows, n, what, pv, pi);
  });
  check_launch("select");
}

}  // namespace ember::cuda
