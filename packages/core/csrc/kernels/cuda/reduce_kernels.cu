// Reductions on the GPU: the CUDA entries of ReduceKernels.reduce (sum, nansum, prod, sum of
// squares, max, min, all, any) and .moments (var / std, Welford) over a ReduceIter, accumulating
// in the output's dtype as the CPU kernels do (kernels/cpu/reduce/reduce_kernels.cpp: int64 for
// integer sums, float for half types). Complex inputs reach only prod here (products by
// c10::complex's textbook formula): sums and means reduce view_as_real's pairs (ops/core/reduce.cpp).
//
// The iterator's dims split into kept ones (output stride != 0) and reduced ones. Long reductions
// take a block of 256 threads per output element (a strided partial per thread, then a tree in
// shared memory), or, where the input's contiguous dim is kept, a block per 32 adjacent outputs
// (coalesced columns); short ones a thread per output element. When the outputs alone make too
// few blocks to fill the GPU (a full sum), the reduced range is split over blocks into partials
// that a second launch combines in a fixed order (deterministic, as PyTorch's).
#include <algorithm>
#include <limits>
#include <type_traits>

#include "core/error.h"
#include "iter/reduce_iter.h"
#include "kernels/complex_arith.h"
#include "kernels/cuda/device_scratch.h"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/cuda/reduce_kernels.h"

namespace ember::cuda {

namespace {

// The kept and the reduced dims, innermost first, strides in bytes.
struct ReduceGeometry {
  int nkeep, nred;
  int64_t keep_shape[kMaxIterDims], keep_istride[kMaxIterDims], keep_ostride[kMaxIterDims];
  int64_t red_shape[kMaxIterDims], red_istride[kMaxIterDims];
  int64_t nout, nreduced;
  char* out;
  const char* in;
};

// Most kernels store their accumulator as it is; var / std store a projection of it.
template <class Acc>
struct StoresAcc {
  __device__ void store(const ReduceGeometry& g, int64_t out, Acc v) const { *reinterpret_cast<Acc*>(g.out + out) = v; }
};

template <class Acc>
struct SumOp : StoresAcc<Acc> {
  __device__ Acc identity() const { return Acc(0); }
  __device__ Acc map(Acc x) const { return x; }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
};
template <class Acc>
struct NanSumOp : StoresAcc<Acc> {
  __device__ Acc identity() const { return Acc(0); }
  __device__ Acc map(Acc x) const { return x != x ? Acc(0) : x; }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
};
template <class Acc>
struct SumSqOp : StoresAcc<Acc> {
  __device__ Acc identity() const { return Acc(0); }
  __device__ Acc map(Acc x) const { return x * x; }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
};
template <class Acc>
struct ProdOp : StoresAcc<Acc> {
  __device__ Acc identity() const { return Acc(1); }
  __device__ Acc map(Acc x) const { return x; }
  __device__ Acc combine(Acc a, Acc b) const { return a * b; }
};
template <class Acc>
struct MaxOp : StoresAcc<Acc> {
  __device__ Acc identity() const {
    if constexpr (std::numeric_limits<Acc>::has_infinity) return -std::numeric_limits<Acc>::infinity();
    else return std::numeric_limits<Acc>::lowest();
  }
  __device__ Acc map(Acc x) const { return x; }
  __device__ Acc combine(Acc a, Acc b) const { return (a != a || a > b) ? a : b; }  // NaN wins
};
template <class Acc>
struct MinOp : StoresAcc<Acc> {
  __device__ Acc identity() const {
    if constexpr (std::numeric_limits<Acc>::has_infinity) return std::numeric_limits<Acc>::infinity();
    else return std::numeric_limits<Acc>::max();
  }
  __device__ Acc map(Acc x) const { return x; }
  __device__ Acc combine(Acc a, Acc b) const { return (a != a || a < b) ? a : b; }
};
template <class C>  // a {re, im} pair
struct ComplexProdOp : StoresAcc<C> {
  __device__ C identity() const { return C{1, 0}; }
  __device__ C map(C x) const { return x; }
  __device__ C combine(C a, C b) const { return complex_arith::mul(a, b); }
};
struct AllOp : StoresAcc<bool> {
  __device__ bool identity() const { return true; }
  __device__ bool map(bool x) const { return x; }
  __device__ bool combine(bool a, bool b) const { return a && b; }
};
struct AnyOp : StoresAcc<bool> {
  __device__ bool identity() const { return false; }
  __device__ bool map(bool x) const { return x; }
  __device__ bool combine(bool a, bool b) const { return a || b; }
};
// xor of the accumulators' bit patterns (int64, or float64 for floating inputs)
template <class Acc>
struct XorOp : StoresAcc<Acc> {
  __device__ Acc identity() const { return Acc(0); }
  __device__ Acc map(Acc x) const { return x; }
  __device__ Acc combine(Acc a, Acc b) const {
    if constexpr (std::is_same_v<Acc, double>)
      return __longlong_as_double(__double_as_longlong(a) ^ __double_as_longlong(b));
    else return a ^ b;
  }
};

// var / std: Welford's running count, mean and sum of squared deviations, merged by Chan's rule
// (a tree of merges, no catastrophic cancellation; equal values give exactly 0). Stores
// m2 / divisor (its square root for std) and, where asked, the mean at the same offsets.
template <class M>
struct Moments {
  M n, mean, m2;
  Moments() = default;
  // one value: PyTorch's first Welford step, whose m2 is NaN for an infinite or NaN value
  __device__ explicit Moments(M x) : n(1), mean(x), m2((x - x) * (x - x)) {}
};
template <class M>
struct MomentsOp {
  char* mean_out;  // null: var / std alone
  M divisor;
  bool take_sqrt;
  __device__ Moments<M> identity() const {
    Moments<M> z;
    z.n = z.mean = z.m2 = M(0);
    return z;
  }
  __device__ Moments<M> map(Moments<M> x) const { return x; }
  __device__ Moments<M> combine(const Moments<M>& a, const Moments<M>& b) const {
    if (a.n == M(0)) return b;
    if (b.n == M(0)) return a;
    Moments<M> r;
    r.n = a.n + b.n;
    const M delta = b.mean - a.mean, w = b.n / r.n;
    r.mean = a.mean + delta * w;
    r.m2 = a.m2 + b.m2 + delta * delta * a.n * w;
    return r;
  }
  __device__ void store(const ReduceGeometry& g, int64_t out, const Moments<M>& v) const {
    const M var = v.m2 / divisor;  // no values: 0 / 0, NaN
    *reinterpret_cast<M*>(g.out + out) = take_sqrt ? sqrt(var) : var;
    if (mean_out) *reinterpret_cast<M*>(mean_out + out) = v.n == M(0) ? std::numeric_limits<M>::quiet_NaN() : v.mean;
  }
};

__device__ __forceinline__ void keep_offsets(const ReduceGeometry& g, int64_t k, int64_t& in, int64_t& out) {
  if (g.nkeep <= 1) {  // one kept dim (or none): no division
    in = g.nkeep ? k * g.keep_istride[0] : 0;
    out = g.nkeep ? k * g.keep_ostride[0] : 0;
    return;
  }
  in = out = 0;
  for (int d = 0; d < g.nkeep; ++d) {
    const int64_t idx = k % g.keep_shape[d];
    k /= g.keep_shape[d];
    in += idx * g.keep_istride[d];
    out += idx * g.keep_ostride[d];
  }
}
__device__ __forceinline__ int64_t reduced_offset(const ReduceGeometry& g, int64_t r) {
  if (g.nred <= 1) return g.nred ? r * g.red_istride[0] : 0;
  int64_t in = 0;
  for (int d = 0; d < g.nred; ++d) {
    in += (r % g.red_shape[d]) * g.red_istride[d];
    r /= g.red_shape[d];
  }
  return in;
}

template <class In, class Acc, class Op>
__device__ __forceinline__ Acc element(const ReduceGeometry& g, int64_t base, int64_t r, const Op& op) {
  return op.map(
      static_cast<Acc>(static_cast<opmath_t<In>>(*reinterpret_cast<const In*>(g.in + base + reduced_offset(g, r)))));
}

constexpr int kBlock = 256;
// A reduction splits its reduced range over blocks (partials, then a second pass) until about this
// many blocks run, enough to keep every SM of a large GPU streaming, while each split block still
// reads at least kMinSplit elements (64K: less is cheaper in one pass than in two launches).
constexpr int64_t kTargetBlocks = 1024, kMinSplit = 65536;

// The block's values combined (kBlock threads, any shape); the result is valid in every thread.
template <class Acc, class Op>
__device__ __forceinline__ Acc block_combine(Acc v, const Op& op, Acc* shm) {
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  shm[t] = v;
  __syncthreads();
  for (int s = kBlock / 2; s > 0; s >>= 1) {
    if (t < s) shm[t] = op.combine(shm[t], shm[t + s]);
    __syncthreads();
  }
  const Acc r = shm[0];
  __syncthreads();  // shm is reused by the next unit
  return r;
}

// Where unit (output k, split s) goes: the output itself, or partials[k * splits + s].
template <class Acc, class Op>
__device__ __forceinline__ void put(const ReduceGeometry& g, const Op& op, Acc v, int64_t out, Acc* partials,
                                    int64_t unit) {
  if (partials) partials[unit] = v;
  else op.store(g, out, v);
}

// A block per (output, split): the split's reduced elements strided over the threads (four loads
// in flight when the reduced dims are one), combined in the block. Coalesced when the reduced
// elements are the input's contiguous run (sum(), sum(-1)); any geometry is correct.
template <class In, class Acc, class Op>
__global__ void block_per_output(const ReduceGeometry g, const Op op, int64_t splits, int64_t chunk, Acc* partials) {
  __shared__ Acc shm[kBlock];
  for (int64_t u = blockIdx.x; u < g.nout * splits; u += gridDim.x) {
    const int64_t k = u / splits, lo = u % splits * chunk, hi = (lo + chunk < g.nreduced ? lo + chunk : g.nreduced);
    int64_t base, out;
    keep_offsets(g, k, base, out);
    Acc acc = op.identity();
    int64_t r = lo + threadIdx.x;
    if (g.nred <= 1) {
      for (; r + 3 * kBlock < hi; r += 4 * kBlock) {
        const Acc a = element<In, Acc>(g, base, r, op), b = element<In, Acc>(g, base, r + kBlock, op);
        const Acc c = element<In, Acc>(g, base, r + 2 * kBlock, op), d = element<In, Acc>(g, base, r + 3 * kBlock, op);
        acc = op.combine(acc, op.combine(op.combine(a, b), op.combine(c, d)));
      }
    }
    for (; r < hi; r += kBlock) acc = op.combine(acc, element<In, Acc>(g, base, r, op));
    acc = block_combine(acc, op, shm);
    if (threadIdx.x == 0) put(g, op, acc, out, partials, u);
  }
}

// Column reductions (the input's contiguous dim is kept: sum(0), a bias gradient): 32 adjacent
// outputs per block in x, so a warp reads 32 adjacent elements; the reduced rows strided over 8
// rows of threads in y, and split over blocks in grid y.
template <class In, class Acc, class Op>
__global__ void columns_kernel(const ReduceGeometry g, const Op op, int64_t splits, int64_t chunk, Acc* partials) {
  __shared__ Acc shm[kBlock];
  for (int64_t k0 = int64_t(blockIdx.x) * 32; k0 < g.nout; k0 += int64_t(gridDim.x) * 32) {
    const int64_t k = k0 + threadIdx.x;
    for (int64_t s = blockIdx.y; s < splits; s += gridDim.y) {
      const int64_t lo = s * chunk, hi = (lo + chunk < g.nreduced ? lo + chunk : g.nreduced);
      int64_t base = 0, out = 0;
      Acc acc = op.identity();
      if (k < g.nout) {
        keep_offsets(g, k, base, out);
        for (int64_t r = lo + threadIdx.y; r < hi; r += 8) acc = op.combine(acc, element<In, Acc>(g, base, r, op));
      }
      shm[threadIdx.y * 32 + threadIdx.x] = acc;
      __syncthreads();
      for (int h = 4; h > 0; h >>= 1) {
        if (threadIdx.y < h)
          shm[threadIdx.y * 32 + threadIdx.x] =
              op.combine(shm[threadIdx.y * 32 + threadIdx.x], shm[(threadIdx.y + h) * 32 + threadIdx.x]);
        __syncthreads();
      }
      if (threadIdx.y == 0 && k < g.nout) put(g, op, shm[threadIdx.x], out, partials, k * splits + s);
      __syncthreads();
    }
  }
}

// Short reductions: a thread per output.
template <class In, class Acc, class Op>
__global__ void thread_per_output(const ReduceGeometry g, const Op op) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < g.nout; k += step) {
    int64_t base, out;
    keep_offsets(g, k, base, out);
    Acc acc = op.identity();
    for (int64_t r = 0; r < g.nreduced; ++r) acc = op.combine(acc, element<In, Acc>(g, base, r, op));
    op.store(g, out, acc);
  }
}

// The second pass of a split reduction: each output's partials, in split order, into the output
// (a block per output when there are many partials, else a thread).
template <class Acc, class Op>
__global__ void finish_splits(const ReduceGeometry g, const Op op, const Acc* partials, int64_t splits, bool by_block) {
  __shared__ Acc shm[kBlock];
  if (by_block) {
    for (int64_t k = blockIdx.x; k < g.nout; k += gridDim.x) {
      Acc acc = op.identity();
      for (int64_t s = threadIdx.x; s < splits; s += kBlock) acc = op.combine(acc, partials[k * splits + s]);
      acc = block_combine(acc, op, shm);
      int64_t base, out;
      keep_offsets(g, k, base, out);
      if (threadIdx.x == 0) op.store(g, out, acc);
    }
    return;
  }
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < g.nout; k += step) {
    Acc acc = op.identity();
    for (int64_t s = 0; s < splits; ++s) acc = op.combine(acc, partials[k * splits + s]);
    int64_t base, out;
    keep_offsets(g, k, base, out);
    op.store(g, out, acc);
  }
}

ReduceGeometry geometry_of(const ReduceIter& it) {
  ReduceGeometry g{};
  g.nout = g.nreduced = 1;
  for (int d = 0; d < it.ndim; ++d) {
    if (it.ostride[d] != 0) {
      g.keep_shape[g.nkeep] = it.shape[d];
      g.keep_istride[g.nkeep] = it.istride[d];
      g.keep_ostride[g.nkeep++] = it.ostride[d];
      g.nout *= it.shape[d];
    } else {
      g.red_shape[g.nred] = it.shape[d];
      g.red_istride[g.nred++] = it.istride[d];
      g.nreduced *= it.shape[d];
    }
  }
  g.out = it.optr;
  g.in = it.iptr;
  return g;
}

// How many splits of the reduced range, given the blocks the outputs alone make and the outputs
// each block reduces at once; and the chunk of the reduced range each split takes.
struct Splits {
  int64_t count, chunk;
};
Splits splits_for(const ReduceGeometry& g, int64_t output_blocks, int64_t outputs_per_block) {
  const int64_t by_blocks = kTargetBlocks / std::max<int64_t>(output_blocks, 1);
  const int64_t by_work = g.nreduced * outputs_per_block / kMinSplit;
  int64_t n = std::max<int64_t>(1, std::min(by_blocks, by_work));
  if (n == 1) return {1, g.nreduced};
  int64_t chunk = (g.nreduced + n - 1) / n;
  chunk = (chunk + 4 * kBlock - 1) / (4 * kBlock) * (4 * kBlock);  // whole rounds of the unrolled loop
  return {(g.nreduced + chunk - 1) / chunk, chunk};
}

template <class In, class Acc, class Op>
void run(const ReduceIter& it, const Op& op) {
  const ReduceGeometry g = geometry_of(it);
  if (g.nout == 0) return;
  const int device = it.in.device().index;
  const LaunchDevice on(device);
  cudaStream_t stream = current_stream(-1);
  // the input's contiguous dim kept: adjacent outputs read adjacent elements
  const bool columns = g.nkeep > 0 && g.keep_istride[0] == int64_t(sizeof(In)) &&
                       (g.nred == 0 || g.red_istride[0] > int64_t(sizeof(In)));
  if (g.nreduced < (columns ? 16 : 64)) {
    thread_per_output<In, Acc, Op><<<grid_for(g.nout), 256, 0, stream>>>(g, op);
    check_launch("reduction");
    return;
  }
  const int64_t out_blocks = columns ? (g.nout + 31) / 32 : g.nout;
  const Splits sp = splits_for(g, out_blocks, columns ? 32 : 1);
  const Scratch partials(sp.count > 1 ? size_t(g.nout * sp.count) * sizeof(Acc) : 0, device);
  Acc* pp = sp.count > 1 ? partials.as<Acc>() : nullptr;
  if (columns) {
    const dim3 grid(capped_blocks(out_blocks), static_cast<unsigned>(sp.count));
    columns_kernel<In, Acc, Op><<<grid, dim3(32, 8), 0, stream>>>(g, op, sp.count, sp.chunk, pp);
  } else {
    block_per_output<In, Acc, Op>
        <<<capped_blocks(g.nout * sp.count), kBlock, 0, stream>>>(g, op, sp.count, sp.chunk, pp);
  }
  check_launch("reduction");
  if (!pp) return;
  const bool by_block = sp.count >= 64;
  finish_splits<Acc, Op>
      <<<by_block ? capped_blocks(g.nout) : grid_for(g.nout), kBlock, 0, stream>>>(g, op, pp, sp.count, by_block);
  check_launch("reduction's second pass");
}

template <class In>
void reduce_typed(const ReduceIter& it, ReduceKind kind) {
  using M = opmath_t<In>;
  using SumAcc = std::conditional_t<std::is_integral_v<In>, int64_t, M>;
  switch (kind) {
    case ReduceKind::Sum:
      return run<In, SumAcc>(it, SumOp<SumAcc>{});
    case ReduceKind::NanSum:
      return run<In, SumAcc>(it, NanSumOp<SumAcc>{});
    case ReduceKind::Prod:
      return run<In, SumAcc>(it, ProdOp<SumAcc>{});
    case ReduceKind::SumSq:
      return run<In, M>(it, SumSqOp<M>{});
    case ReduceKind::Max:
      return run<In, M>(it, MaxOp<M>{});
    case ReduceKind::Min:
      return run<In, M>(it, MinOp<M>{});
    case ReduceKind::All:
      return run<In, bool>(it, AllOp{});
    case ReduceKind::Any:
      return run<In, bool>(it, AnyOp{});
    case ReduceKind::XorSum:
      if constexpr (std::is_floating_point_v<M>) return run<In, double>(it, XorOp<double>{});
      else return run<In, int64_t>(it, XorOp<int64_t>{});
  }
}

struct CF {
  float re, im;
};
struct CD {
  double re, im;
};

}  // namespace

void reduce(ReduceIter& it, ReduceKind kind) {
  const ScalarType dt = it.in.dtype();
  if (kind == ReduceKind::Prod && dt == ScalarType::ComplexFloat) return run<CF, CF>(it, ComplexProdOp<CF>{});
  if (kind == ReduceKind::Prod && dt == ScalarType::ComplexDouble) return run<CD, CD>(it, ComplexProdOp<CD>{});
  EMBER_DISPATCH_ALL(it.in.dtype(), "reduce_cuda", [&] { reduce_typed<scalar_t>(it, kind); });
}

void moments(ReduceIter& it, const Tensor& mean_out, double divisor, bool take_sqrt) {
  EMBER_DISPATCH_FLOAT(it.in.dtype(), "var_cuda", [&] {
    using M = opmath_t<scalar_t>;
    const MomentsOp<M> op{mean_out.defined() ? mean_out.raw() : nullptr, static_cast<M>(divisor), take_sqrt};
    run<scalar_t, Moments<M>>(it, op);
  });
}

}  // namespace ember::cuda
