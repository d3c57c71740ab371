// Reductions on the GPU: the CUDA entry of ReduceKernels.reduce (sum, nansum, prod, sum of
// squares, max, min, all, any) over a ReduceIter, accumulating in the output's dtype as the CPU
// kernels do (kernels/cpu/reduce/reduce_kernels.cpp: int64 for integer sums, float for half types).
//
// The iterator's dims split into kept ones (output stride != 0) and reduced ones. Long reductions
// take a block of 256 threads per output element (a strided partial per thread, then a tree in
// shared memory); short ones a thread per output element.
#include <limits>
#include <type_traits>

#include "core/error.h"
#include "iter/reduce_iter.h"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/cuda/reduce_kernels.h"

namespace ember::cuda {

namespace {

template <class Acc>
struct SumOp {
  __device__ Acc identity() const { return Acc(0); }
  __device__ Acc map(Acc x) const { return x; }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
};
template <class Acc>
struct NanSumOp {
  __device__ Acc identity() const { return Acc(0); }
  __device__ Acc map(Acc x) const { return x != x ? Acc(0) : x; }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
};
template <class Acc>
struct SumSqOp {
  __device__ Acc identity() const { return Acc(0); }
  __device__ Acc map(Acc x) const { return x * x; }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
};
template <class Acc>
struct ProdOp {
  __device__ Acc identity() const { return Acc(1); }
  __device__ Acc map(Acc x) const { return x; }
  __device__ Acc combine(Acc a, Acc b) const { return a * b; }
};
template <class Acc>
struct MaxOp {
  __device__ Acc identity() const {
    if constexpr (std::numeric_limits<Acc>::has_infinity) return -std::numeric_limits<Acc>::infinity();
    else return std::numeric_limits<Acc>::lowest();
  }
  __device__ Acc map(Acc x) const { return x; }
  __device__ Acc combine(Acc a, Acc b) const { return (a != a || a > b) ? a : b; }  // NaN wins
};
template <class Acc>
struct MinOp {
  __device__ Acc identity() const {
    if constexpr (std::numeric_limits<Acc>::has_infinity) return std::numeric_limits<Acc>::infinity();
    else return std::numeric_limits<Acc>::max();
  }
  __device__ Acc map(Acc x) const { return x; }
  __device__ Acc combine(Acc a, Acc b) const { return (a != a || a < b) ? a : b; }
};
struct AllOp {
  __device__ bool identity() const { return true; }
  __device__ bool map(bool x) const { return x; }
  __device__ bool combine(bool a, bool b) const { return a && b; }
};
struct AnyOp {
  __device__ bool identity() const { return false; }
  __device__ bool map(bool x) const { return x; }
  __device__ bool combine(bool a, bool b) const { return a || b; }
};

// The kept and the reduced dims, innermost first, strides in bytes.
struct ReduceGeometry {
  int nkeep, nred;
  int64_t keep_shape[kMaxIterDims], keep_istride[kMaxIterDims], keep_ostride[kMaxIterDims];
  int64_t red_shape[kMaxIterDims], red_istride[kMaxIterDims];
  int64_t nout, nreduced;
  char* out;
  const char* in;
};

__device__ __forceinline__ void keep_offsets(const ReduceGeometry& g, int64_t k, int64_t& in, int64_t& out) {
  in = out = 0;
  for (int d = 0; d < g.nkeep; ++d) {
    const int64_t idx = k % g.keep_shape[d];
    k /= g.keep_shape[d];
    in += idx * g.keep_istride[d];
    out += idx * g.keep_ostride[d];
  }
}
__device__ __forceinline__ int64_t reduced_offset(const ReduceGeometry& g, int64_t r) {
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

template <class In, class Acc, class Op>
__global__ void block_per_output(const ReduceGeometry g, const Op op) {
  __shared__ Acc partial[kBlock];
  for (int64_t k = blockIdx.x; k < g.nout; k += gridDim.x) {
    int64_t base, out;
    keep_offsets(g, k, base, out);
    Acc acc = op.identity();
    for (int64_t r = threadIdx.x; r < g.nreduced; r += kBlock) acc = op.combine(acc, element<In, Acc>(g, base, r, op));
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = kBlock / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) partial[threadIdx.x] = op.combine(partial[threadIdx.x], partial[threadIdx.x + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0) *reinterpret_cast<Acc*>(g.out + out) = partial[0];
    __syncthreads();  // partial is reused by the next output
  }
}

template <class In, class Acc, class Op>
__global__ void thread_per_output(const ReduceGeometry g, const Op op) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < g.nout; k += step) {
    int64_t base, out;
    keep_offsets(g, k, base, out);
    Acc acc = op.identity();
    for (int64_t r = 0; r < g.nreduced; ++r) acc = op.combine(acc, element<In, Acc>(g, base, r, op));
    *reinterpret_cast<Acc*>(g.out + out) = acc;
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

template <class In, class Acc, class Op>
void run(const ReduceIter& it, const Op& op) {
  const ReduceGeometry g = geometry_of(it);
  if (g.nout == 0) return;
  const LaunchDevice on(it.in.device().index);
  if (g.nreduced >= 64) {
    block_per_output<In, Acc, Op><<<capped_blocks(g.nout), kBlock, 0, current_stream(-1)>>>(g, op);
  } else {
    thread_per_output<In, Acc, Op><<<grid_for(g.nout), 256, 0, current_stream(-1)>>>(g, op);
  }
  check_launch("reduction");
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
  }
}

}  // namespace

void reduce(ReduceIter& it, ReduceKind kind) {
  EMBER_DISPATCH_ALL(it.in.dtype(), "reduce_cuda", [&] { reduce_typed<scalar_t>(it, kind); });
}

}  // namespace ember::cuda
