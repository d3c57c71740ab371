// Tiled fused attention (attention_tiled.h), the semantics of attention_kernels.cu's simple
// kernels. A block is 4 warps; each warp owns 4 rows (query rows in the forward and dQ kernels,
// key rows in the dK/dV kernel) and keeps their output columns in registers, lane l owning columns
// l, l + 32, ...; the other side (32 keys, or 32 query rows: one per lane) comes through shared
// memory a tile at a time, padded by one element per row so the lanes' dot products hit different
// banks. The forward keeps a running max per row (online softmax); a row that met a NaN score is
// written NaN at the end, as the two-pass kernel gives it.
#include <climits>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/attention_args.h"
#include "kernels/cuda/attention_device.cuh"
#include "kernels/cuda/attention_tiled.h"
#include "kernels/cuda/pointwise_launch.cuh"

namespace ember::cuda::attention_tiled {

namespace {

using attention::Dims;
using attention::FlashBackward;
using attention::FlashForward;
using namespace attention_device;

constexpr int kWarps = 4, kRows = 4;        // rows per warp
constexpr int kBlockRows = kWarps * kRows;  // rows per block
constexpr int kTile = 32;                   // the other side's rows per tile: one per lane
constexpr int kThreads = kWarps * 32;
constexpr unsigned kAll = 0xffffffffu;
constexpr size_t kMaxShared = 48 << 10;

template <class T>
__device__ T warp_sum(T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kAll, v, o);
  return v;
}
template <class T>
__device__ T warp_max(T v) {
  for (int o = 16; o > 0; o >>= 1) {
    const T w = __shfl_xor_sync(kAll, v, o);
    v = w > v ? w : v;
  }
  return v;
}

// rows [r0, r0 + rows) of one (batch, head)'s (n, width) rows into shared memory with row stride
// `pitch`, zeros past n
template <class T>
__device__ void load_rows(T* dst, int64_t pitch, const T* src, int64_t ld, int64_t r0, int64_t rows, int64_t n,
                          int64_t width) {
  for (int64_t x = threadIdx.x; x < rows * width; x += kThreads) {
    const int64_t r = x / width, c = x % width;
    dst[r * pitch + c] = r0 + r < n ? src[(r0 + r) * ld + c] : T(0);
  }
}
template <class T>
__device__ void load_rows(T* dst, int64_t pitch, const attention::HeadRows<T>& src, int64_t bh, int64_t H, int64_t r0,
                          int64_t rows, int64_t n, int64_t width) {
  load_rows(dst, pitch, src.head(bh, H), src.sl, r0, rows, n, width);
}

// dots[r] = row r of the warp's rows (n apart, the same for every lane: a broadcast) . this lane's
// tile row v, for the kRows rows.
template <class T>
__device__ void row_dots(T (&dots)[kRows], const T* rows, const T* v, int64_t n) {
  for (int r = 0; r < kRows; ++r) dots[r] = 0;
  for (int64_t e = 0; e < n; ++e) {
    const T x = v[e];
    for (int r = 0; r < kRows; ++r) dots[r] += rows[r * n + e] * x;
  }
}

// ---- forward: 16 query rows per block, key tiles of 32 ------------------------------------------

template <class T, int C>
__global__ void __launch_bounds__(kThreads) forward_kernel(FlashForward<T> a, int64_t row_blocks) {
  extern __shared__ __align__(16) unsigned char smem[];
  const Dims d = a.d;
  const int64_t E = d.E, Ev = d.Ev, kp = E + 1;
  T* qs = reinterpret_cast<T*>(smem);  // kBlockRows x E
  T* ks = qs + kBlockRows * E;         // kTile x (E + 1)
  T* vs = ks + kTile * kp;             // kTile x Ev
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t bh = blockIdx.x / row_blocks, i0 = blockIdx.x % row_blocks * kBlockRows;
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const T scale = static_cast<T>(a.scale);
  load_rows(qs, E, a.q, bh, d.H, i0, kBlockRows, d.L, E);
  T acc[kRows][C], m[kRows], l[kRows], pr[kRows];
  int bad[kRows];
  for (int r = 0; r < kRows; ++r) {
    m[r] = kNegInf, l[r] = 0, bad[r] = 0;
    for (int c = 0; c < C; ++c) acc[r][c] = 0;
  }
  const T* myq = qs + warp * kRows * E;
  for (int64_t j0 = 0; j0 < d.S; j0 += kTile) {
    __syncthreads();  // every warp is done with the previous tile
    load_rows(ks, kp, a.k, bh, d.H, j0, kTile, d.S, E);
    load_rows(vs, Ev, a.v, bh, d.H, j0, kTile, d.S, Ev);  // absent keys' rows 0: they add nothing
    __syncthreads();
    T dot[kRows];
    row_dots(dot, myq, ks + lane * kp, E);
    const int64_t j = j0 + lane;
    for (int r = 0; r < kRows; ++r) {
      const int64_t i = i0 + warp * kRows + r;
      const T s = j < d.S && i < d.L ? score_of(dot[r], scale, d, a.is_causal, a.mask, bh, i, j) : kNegInf;
      bad[r] |= s != s;
      const T tile_max = warp_max(s == s ? s : kNegInf);
      const T mn = tile_max > m[r] ? tile_max : m[r];
      const T alpha = mn == kNegInf ? T(1) : dev_exp(m[r] - mn);
      const T p = j < d.S && mn != kNegInf ? dev_exp(s - mn) : T(0);
      l[r] = l[r] * alpha + p;  // this lane's share of the row's sum
      m[r] = mn;
      pr[r] = rounded(p, a.round_to);
      for (int c = 0; c < C; ++c) acc[r][c] *= alpha;
    }
    for (int t = 0; t < kTile; ++t) {
      T pt[kRows];
      for (int r = 0; r < kRows; ++r) pt[r] = __shfl_sync(kAll, pr[r], t);
      for (int c = 0; c < C; ++c) {
        const int64_t col = lane + 32 * c;
        if (col >= Ev) break;
        const T v = vs[t * Ev + col];
        for (int r = 0; r < kRows; ++r) acc[r][c] += pt[r] * v;
      }
    }
  }
  for (int r = 0; r < kRows; ++r) {
    const T sum = warp_sum(l[r]);
    const bool nan = __any_sync(kAll, bad[r]);
    const int64_t i = i0 + warp * kRows + r;
    if (i >= d.L) continue;
    const int64_t row = bh * d.L + i;
    const bool masked = m[r] == kNegInf;
    const T inv = masked ? T(1) : T(1) / sum;
    constexpr T kNaN = std::numeric_limits<T>::quiet_NaN();
    for (int c = 0; c < C; ++c) {
      const int64_t col = lane + 32 * c;
      if (col < Ev) a.out[row * Ev + col] = nan ? kNaN : acc[r][c] * inv;
    }
    if (lane == 0) a.lse[row] = nan ? kNaN : masked ? T(0) : m[r] + dev_log(sum);
  }
}

// ---- backward, dQ: 16 query rows per block, key tiles of 32; also each row's D = dO . O ----------

template <class T, int C>
__global__ void __launch_bounds__(kThreads) dq_kernel(FlashBackward<T> a, int64_t row_blocks, T* D) {
  extern __shared__ __align__(16) unsigned char smem[];
  const Dims d = a.d;
  const int64_t E = d.E, Ev = d.Ev, kp = E + 1, vp = Ev + 1;
  T* qs = reinterpret_cast<T*>(smem);  // kBlockRows x E
  T* gos = qs + kBlockRows * E;        // kBlockRows x Ev: the rows' dO
  T* ks = gos + kBlockRows * Ev;       // kTile x (E + 1)
  T* vs = ks + kTile * kp;             // kTile x (Ev + 1)
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t bh = blockIdx.x / row_blocks, i0 = blockIdx.x % row_blocks * kBlockRows;
  const T scale = static_cast<T>(a.scale);
  load_rows(qs, E, a.q, bh, d.H, i0, kBlockRows, d.L, E);
  load_rows(gos, Ev, a.grad_out, bh, d.H, i0, kBlockRows, d.L, Ev);
  __syncthreads();
  const T* myq = qs + warp * kRows * E;
  const T* mygo = gos + warp * kRows * Ev;
  T Di[kRows], lse[kRows], acc[kRows][C];
  int64_t lim[kRows];
  for (int r = 0; r < kRows; ++r) {
    const int64_t i = i0 + warp * kRows + r;
    T part = 0;
    if (i < d.L)
      for (int64_t e = lane; e < Ev; e += 32) part += mygo[r * Ev + e] * a.out[(bh * d.L + i) * Ev + e];
    Di[r] = warp_sum(part);
    if (lane == 0 && i < d.L) D[bh * d.L + i] = Di[r];
    lse[r] = i < d.L ? a.lse[bh * d.L + i] : T(0);
    lim[r] = i < d.L ? key_limit(d, i, a.is_causal) : 0;
    for (int c = 0; c < C; ++c) acc[r][c] = 0;
  }
  const int64_t last = (i0 + kBlockRows < d.L ? i0 + kBlockRows : d.L) - 1;
  const int64_t keys = key_limit(d, last, a.is_causal);  // the limit grows with the row
  for (int64_t j0 = 0; j0 < keys; j0 += kTile) {
    __syncthreads();
    load_rows(ks, kp, a.k, bh, d.H, j0, kTile, d.S, E);
    load_rows(vs, vp, a.v, bh, d.H, j0, kTile, d.S, Ev);
    __syncthreads();
    T dot[kRows], dp[kRows];
    row_dots(dot, myq, ks + lane * kp, E);
    row_dots(dp, mygo, vs + lane * vp, Ev);
    const int64_t j = j0 + lane;
    T g[kRows];
    unsigned valid[kRows];
    for (int r = 0; r < kRows; ++r) {
      const int64_t i = i0 + warp * kRows + r;
      const bool ok = j < lim[r];
      g[r] = ok ? dev_exp(score_of(dot[r], scale, d, a.is_causal, a.mask, bh, i, j) - lse[r]) * (dp[r] - Di[r]) : T(0);
      valid[r] = __ballot_sync(kAll, ok);
    }
    for (int t = 0; t < kTile; ++t)
      for (int r = 0; r < kRows; ++r) {
        if (!(valid[r] >> t & 1u)) continue;  // keys past the limit never meet dQ (0 * inf)
        const T gt = __shfl_sync(kAll, g[r], t);
        for (int c = 0; c < C; ++c) {
          const int64_t col = lane + 32 * c;
          if (col < E) acc[r][c] += gt * ks[t * kp + col];
        }
      }
  }
  for (int r = 0; r < kRows; ++r) {
    const int64_t i = i0 + warp * kRows + r;
    if (i >= d.L) continue;
    for (int c = 0; c < C; ++c) {
      const int64_t col = lane + 32 * c;
      if (col < E) a.dq[(bh * d.L + i) * E + col] = scale * acc[r][c];
    }
  }
}

// ---- backward, dK and dV: 16 key rows per block, query tiles of 32 ------------------------------

template <class T, int C>
__global__ void __launch_bounds__(kThreads) dkdv_kernel(FlashBackward<T> a, int64_t key_blocks, const T* D) {
  extern __shared__ __align__(16) unsigned char smem[];
  const Dims d = a.d;
  const int64_t E = d.E, Ev = d.Ev, qp = E + 1, op = Ev + 1;
  T* kr = reinterpret_cast<T*>(smem);  // kBlockRows x E: the block's keys
  T* vr = kr + kBlockRows * E;         // kBlockRows x Ev
  T* qs = vr + kBlockRows * Ev;        // kTile x (E + 1)
  T* gos = qs + kTile * qp;            // kTile x (Ev + 1)
  T* ls = gos + kTile * op;            // kTile: the query rows' lse
  T* ds = ls + kTile;                  // kTile: their D
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t bh = blockIdx.x / key_blocks, j0 = blockIdx.x % key_blocks * kBlockRows;
  const T scale = static_cast<T>(a.scale);
  load_rows(kr, E, a.k, bh, d.H, j0, kBlockRows, d.S, E);
  load_rows(vr, Ev, a.v, bh, d.H, j0, kBlockRows, d.S, Ev);
  const T* myk = kr + warp * kRows * E;
  const T* myv = vr + warp * kRows * Ev;
  T dk[kRows][C], dv[kRows][C];
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < C; ++c) dk[r][c] = 0, dv[r][c] = 0;
  // causal: key j is seen by the rows of its own block of 64 and later ones
  const int64_t first = a.is_causal ? j0 / kCpuBlock * kCpuBlock : 0;
  for (int64_t q0 = first; q0 < d.L; q0 += kTile) {
    __syncthreads();
    load_rows(qs, qp, a.q, bh, d.H, q0, kTile, d.L, E);
    load_rows(gos, op, a.grad_out, bh, d.H, q0, kTile, d.L, Ev);
    if (threadIdx.x < kTile) {
      const int64_t i = q0 + threadIdx.x;
      ls[threadIdx.x] = i < d.L ? a.lse[bh * d.L + i] : T(0);
      ds[threadIdx.x] = i < d.L ? D[bh * d.L + i] : T(0);
    }
    __syncthreads();
    T dot[kRows], dp[kRows];
    row_dots(dot, myk, qs + lane * qp, E);
    row_dots(dp, myv, gos + lane * op, Ev);
    const int64_t i = q0 + lane;
    const int64_t lim = i < d.L ? key_limit(d, i, a.is_causal) : 0;
    T P[kRows], g[kRows];
    unsigned valid[kRows];
    for (int r = 0; r < kRows; ++r) {
      const int64_t j = j0 + warp * kRows + r;
      const bool ok = j < lim;
      P[r] = ok ? dev_exp(score_of(dot[r], scale, d, a.is_causal, a.mask, bh, i, j) - ls[lane]) : T(0);
      g[r] = ok ? P[r] * (dp[r] - ds[lane]) : T(0);
      valid[r] = __ballot_sync(kAll, ok);
    }
    for (int t = 0; t < kTile; ++t)
      for (int r = 0; r < kRows; ++r) {
        if (!(valid[r] >> t & 1u)) continue;
        const T pt = __shfl_sync(kAll, P[r], t), gt = __shfl_sync(kAll, g[r], t);
        for (int c = 0; c < C; ++c) {
          const int64_t col = lane + 32 * c;
          if (col < Ev) dv[r][c] += pt * gos[t * op + col];
          if (col < E) dk[r][c] += gt * qs[t * qp + col];
        }
      }
  }
  for (int r = 0; r < kRows; ++r) {
    const int64_t j = j0 + warp * kRows + r;
    if (j >= d.S) continue;
    for (int c = 0; c < C; ++c) {
      const int64_t col = lane + 32 * c;
      if (col < Ev) a.dv[(bh * d.S + j) * Ev + col] = dv[r][c];
      if (col < E) a.dk[(bh * d.S + j) * E + col] = scale * dk[r][c];
    }
  }
}

// Columns per lane for head sizes up to 32 C (0: past 256, the simple kernels' case).
int columns(int64_t E, int64_t Ev) {
  const int64_t w = E > Ev ? E : Ev;
  return w <= 32 ? 1 : w <= 64 ? 2 : w <= 128 ? 4 : w <= 256 ? 8 : 0;
}

int64_t blocks_of(int64_t n) { return (n + kBlockRows - 1) / kBlockRows; }

// Launches kernel<C> for the C `columns` picked (the kernels unroll their register arrays over C).
template <class Launch>
bool by_columns(int c, Launch&& launch) {
  switch (c) {
    case 1:
      return launch(std::integral_constant<int, 1>{});
    case 2:
      return launch(std::integral_constant<int, 2>{});
    case 4:
      return launch(std::integral_constant<int, 4>{});
    case 8:
      return launch(std::integral_constant<int, 8>{});
    default:
      return false;
  }
}

}  // namespace

template <class T>
bool forward(const FlashForward<T>& a) {
  const Dims& d = a.d;
  const int64_t row_blocks = blocks_of(d.L), grid = d.B * d.H * row_blocks;
  const size_t shared = (kBlockRows * d.E + kTile * (d.E + 1) + kTile * d.Ev) * sizeof(T);
  if (shared > kMaxShared || grid > INT_MAX) return false;
  return by_columns(columns(d.E, d.Ev), [&](auto c) {
    constexpr int C = decltype(c)::value;
    forward_kernel<T, C><<<static_cast<unsigned>(grid), kThreads, shared, current_stream(-1)>>>(a, row_blocks);
    return true;
  });
}

template <class T>
bool backward(const FlashBackward<T>& a, T* D) {
  const Dims& d = a.d;
  const int64_t row_blocks = blocks_of(d.L), key_blocks = blocks_of(d.S);
  const int64_t rows_grid = d.B * d.H * row_blocks, keys_grid = d.B * d.H * key_blocks;
  const size_t pair = (kBlockRows * (d.E + d.Ev) + kTile * (d.E + 1 + d.Ev + 1)) * sizeof(T);
  const size_t shared = pair + 2 * kTile * sizeof(T);
  if (shared > kMaxShared || rows_grid > INT_MAX || keys_grid > INT_MAX) return false;
  return by_columns(columns(d.E, d.Ev), [&](auto c) {
    constexpr int C = decltype(c)::value;
    dq_kernel<T, C><<<static_cast<unsigned>(rows_grid), kThreads, pair, current_stream(-1)>>>(a, row_blocks, D);
    if (keys_grid > 0)
      dkdv_kernel<T, C><<<static_cast<unsigned>(keys_grid), kThreads, shared, current_stream(-1)>>>(a, key_blocks, D);
    return true;
  });
}

template bool forward(const FlashForward<float>&);
template bool forward(const FlashForward<double>&);
template bool backward(const FlashBackward<float>&, float*);
template bool backward(const FlashBackward<double>&, double*);

}  // namespace ember::cuda::attention_tiled
