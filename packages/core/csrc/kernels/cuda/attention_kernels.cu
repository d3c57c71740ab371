// Fused scaled-dot-product attention on the GPU (kernels/backend.h, AttentionKernels), float and
// double, with the CPU kernel's semantics (kernels/cpu/attention/flash_attention.cpp): scores =
// Q K^T * scale + mask, -inf above the diagonal when causal (top-left aligned); the row softmax
// kept as its log-sum-exp; a fully masked row gives P = 0, lse = 0; a NaN score makes its row NaN;
// 0 * inf in P V stays NaN. Head sizes up to 256 run the tiled kernels (attention_tiled.cu); the
// rest these simple ones: a block of 128 threads per query row makes two passes over the keys (the
// row max, then the exps, their sum and P V, each thread owning some output columns). The backward
// recomputes P from lse: one block per query row writes dQ (and the rows' D = dO . O), then one
// block per key row adds its dK and dV, with no atomics.
#include <cmath>
#include <limits>

#include "core/allocator.h"
#include "kernels/attention_args.h"
#include "kernels/cuda/attention_device.cuh"
#include "kernels/cuda/attention_kernels.h"
#include "kernels/cuda/attention_tiled.h"
#include "kernels/cuda/pointwise_launch.cuh"

namespace ember::cuda {

namespace {

using attention::Dims;
using attention::FlashBackward;
using attention::FlashForward;
using attention::MaskView;

using namespace attention_device;

constexpr int kThreads = 128;

// One score of query row i against key j of (batch, head) bh.
template <class T>
struct Scores {
  attention::HeadRows<T> q, k;
  Dims d;
  bool is_causal;
  MaskView mask;
  T scale;
  __device__ T operator()(int64_t bh, int64_t i, int64_t j) const {
    if (is_causal && j > i) return -std::numeric_limits<T>::infinity();
    const T* qr = q.head(bh, d.H) + i * q.sl;
    const T* kr = k.head(bh, d.H) + j * k.sl;
    T acc = 0;
    for (int64_t e = 0; e < d.E; ++e) acc += qr[e] * kr[e];
    return score_of(acc, scale, d, is_causal, mask, bh, i, j);
  }
};

// Every thread gets the block's sum (or max) of v; red holds kThreads values.
template <class T>
__device__ T block_sum(T v, T* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const T r = red[0];
  __syncthreads();
  return r;
}
template <class T>
__device__ T block_max(T v, T* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && red[threadIdx.x + s] > red[threadIdx.x]) red[threadIdx.x] = red[threadIdx.x + s];
    __syncthreads();
  }
  const T r = red[0];
  __syncthreads();
  return r;
}

template <class T>
__global__ void forward_kernel(FlashForward<T> a, Scores<T> sc) {
  __shared__ T red[kThreads];
  __shared__ T p[kThreads];
  const Dims d = a.d;
  const int tid = threadIdx.x;
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  for (int64_t row = blockIdx.x; row < d.B * d.H * d.L; row += gridDim.x) {
    const int64_t bh = row / d.L, i = row % d.L;
    // pass 1: the row's max (NaN when any score is NaN)
    T m = kNegInf;
    int nan = 0;
    for (int64_t j = tid; j < d.S; j += kThreads) {
      const T s = sc(bh, i, j);
      nan |= s != s;
      m = s > m ? s : m;
    }
    m = block_max(m, red);
    if (__syncthreads_or(nan)) m = std::numeric_limits<T>::quiet_NaN();
    const bool masked_row = m == kNegInf;
    // pass 2: e = exp(s - max) summed, P V over every key (a masked key's 0 still meets V)
    T* o = a.out + row * d.Ev;
    for (int64_t e = tid; e < d.Ev; e += kThreads) o[e] = 0;
    T sum = 0;
    const T* vb = a.v.head(bh, d.H);
    for (int64_t j0 = 0; j0 < d.S; j0 += kThreads) {
      const int64_t j = j0 + tid;
      T ev = 0;
      if (j < d.S && !masked_row) {
        ev = dev_exp(sc(bh, i, j) - m);
        sum += ev;
        ev = rounded(ev, a.round_to);
      }
      p[tid] = ev;
      __syncthreads();
      const int64_t cnt = d.S - j0 < kThreads ? d.S - j0 : kThreads;
      for (int64_t e = tid; e < d.Ev; e += kThreads) {
        T acc = o[e];
        for (int64_t t = 0; t < cnt; ++t) acc += p[t] * vb[(j0 + t) * a.v.sl + e];
        o[e] = acc;
      }
      __syncthreads();
    }
    sum = block_sum(sum, red);
    const T inv = masked_row ? T(1) : T(1) / sum;
    if (tid == 0) a.lse[row] = masked_row ? T(0) : m + dev_log(sum);
    for (int64_t e = tid; e < d.Ev; e += kThreads) o[e] *= inv;
  }
}

// dQ_i = scale * sum_j dS_ij K_j with dS_ij = P_ij (dO_i . V_j - D_i), D_i = dO_i . O_i (kept).
template <class T>
__global__ void backward_dq_kernel(FlashBackward<T> a, Scores<T> sc, T* D) {
  __shared__ T red[kThreads];
  __shared__ T ds[kThreads];
  const Dims d = a.d;
  const int tid = threadIdx.x;
  for (int64_t row = blockIdx.x; row < d.B * d.H * d.L; row += gridDim.x) {
    const int64_t bh = row / d.L, i = row % d.L;
    const T* go = a.grad_out.head(bh, d.H) + i * a.grad_out.sl;
    const T* o = a.out + row * d.Ev;
    T part = 0;
    for (int64_t e = tid; e < d.Ev; e += kThreads) part += go[e] * o[e];
    const T Di = block_sum(part, red);
    if (tid == 0) D[row] = Di;
    const T l = a.lse[row];
    const int64_t lim = key_limit(d, i, a.is_causal);
    T* dq = a.dq + row * d.E;
    for (int64_t e = tid; e < d.E; e += kThreads) dq[e] = 0;
    const T* vb = a.v.head(bh, d.H);
    const T* kb = a.k.head(bh, d.H);
    for (int64_t j0 = 0; j0 < lim; j0 += kThreads) {
      const int64_t j = j0 + tid;
      T g = 0;
      if (j < lim) {
        const T P = dev_exp(sc(bh, i, j) - l);
        T dp = 0;
        for (int64_t e = 0; e < d.Ev; ++e) dp += go[e] * vb[j * a.v.sl + e];
        g = P * (dp - Di);
      }
      ds[tid] = g;
      __syncthreads();
      const int64_t cnt = lim - j0 < kThreads ? lim - j0 : kThreads;
      for (int64_t e = tid; e < d.E; e += kThreads) {
        T acc = 0;
        for (int64_t t = 0; t < cnt; ++t) acc += ds[t] * kb[(j0 + t) * a.k.sl + e];
        dq[e] += sc.scale * acc;
      }
      __syncthreads();
    }
  }
}

// dV_j += sum_i P_ij dO_i and dK_j += scale * sum_i dS_ij Q_i over the rows i whose keys include j.
template <class T>
__global__ void backward_dkdv_kernel(FlashBackward<T> a, Scores<T> sc, const T* D) {
  __shared__ T pp[kThreads];
  __shared__ T ds[kThreads];
  __shared__ bool valid[kThreads];
  const Dims d = a.d;
  const int tid = threadIdx.x;
  for (int64_t krow = blockIdx.x; krow < d.B * d.H * d.S; krow += gridDim.x) {
    const int64_t bh = krow / d.S, j = krow % d.S;
    const T* vj = a.v.head(bh, d.H) + j * a.v.sl;
    const T* gob = a.grad_out.head(bh, d.H);
    const T* qb = a.q.head(bh, d.H);
    const int64_t gsl = a.grad_out.sl;
    T* dv = a.dv + krow * d.Ev;
    T* dk = a.dk + krow * d.E;
    for (int64_t i0 = 0; i0 < d.L; i0 += kThreads) {
      const int64_t i = i0 + tid;
      const bool ok = i < d.L && j < key_limit(d, i, a.is_causal);
      T P = 0, g = 0;
      if (ok) {
        const int64_t row = bh * d.L + i;
        P = dev_exp(sc(bh, i, j) - a.lse[row]);
        T dp = 0;
        for (int64_t e = 0; e < d.Ev; ++e) dp += gob[i * gsl + e] * vj[e];
        g = P * (dp - D[row]);
      }
      pp[tid] = P;
      ds[tid] = g;
      valid[tid] = ok;
      __syncthreads();
      const int64_t cnt = d.L - i0 < kThreads ? d.L - i0 : kThreads;
      for (int64_t e = tid; e < d.Ev; e += kThreads) {
        T acc = 0;
        for (int64_t t = 0; t < cnt; ++t)
          if (valid[t]) acc += pp[t] * gob[(i0 + t) * gsl + e];
        dv[e] += acc;
      }
      for (int64_t e = tid; e < d.E; e += kThreads) {
        T acc = 0;
        for (int64_t t = 0; t < cnt; ++t)
          if (valid[t]) acc += ds[t] * qb[(i0 + t) * a.q.sl + e];
        dk[e] += sc.scale * acc;
      }
      __syncthreads();
    }
  }
}

template <class T>
void forward_impl(const FlashForward<T>& a) {
  const Dims& d = a.d;
  const int64_t rows = d.B * d.H * d.L;
  if (rows == 0) return;
  const LaunchDevice on(device_of(a.out, "scaled_dot_product_attention"));
  if (!attention_tiled::forward(a)) {
    const Scores<T> sc{a.q, a.k, d, a.is_causal, a.mask, static_cast<T>(a.scale)};
    forward_kernel<T><<<capped_blocks(rows), kThreads, 0, current_stream(-1)>>>(a, sc);
  }
  check_launch("scaled_dot_product_attention");
}

// dK and dV zeroed on the stream (the simple kernels add to them)
template <class T>
void zero_key_grads(const FlashBackward<T>& a) {
  const size_t keys = static_cast<size_t>(a.d.B * a.d.H * a.d.S);
  if (keys == 0) return;
  const bool ok = cudaMemsetAsync(a.dk, 0, keys * a.d.E * sizeof(T), current_stream(-1)) == cudaSuccess &&
                  cudaMemsetAsync(a.dv, 0, keys * a.d.Ev * sizeof(T), current_stream(-1)) == cudaSuccess;
  EMBER_CHECK(ok, "CUDA error: cudaMemsetAsync (scaled_dot_product_attention_backward)");
}

template <class T>
void backward_impl(const FlashBackward<T>& a) {
  const Dims& d = a.d;
  const int64_t rows = d.B * d.H * d.L, keys = d.B * d.H * d.S;
  if (rows == 0 && keys == 0) return;
  const int device = device_of(rows > 0 ? a.dq : a.dk, "scaled_dot_product_attention_backward");
  const LaunchDevice on(device);
  if (rows == 0) return zero_key_grads(a);  // no query row sees the keys
  const Device dev{DeviceType::CUDA, static_cast<int8_t>(device)};
  const size_t nbytes = static_cast<size_t>(rows) * sizeof(T);
  T* D = static_cast<T*>(allocate(nbytes, dev));  // stream-ordered: freed after the kernels below
  if (!attention_tiled::backward(a, D)) {
    zero_key_grads(a);
    const Scores<T> sc{a.q, a.k, d, a.is_causal, a.mask, static_cast<T>(a.scale)};
    backward_dq_kernel<T><<<capped_blocks(rows), kThreads, 0, current_stream(-1)>>>(a, sc, D);
    if (keys > 0) backward_dkdv_kernel<T><<<capped_blocks(keys), kThreads, 0, current_stream(-1)>>>(a, sc, D);
  }
  const cudaError_t e = cudaGetLastError();
  deallocate(D, nbytes, dev);
  EMBER_CHECK(e == cudaSuccess, "CUDA error: ", cudaGetErrorString(e), " (scaled_dot_product_attention_backward)");
}

}  // namespace

void flash_forward_f(const FlashForward<float>& a) { forward_impl(a); }
void flash_forward_d(const FlashForward<double>& a) { forward_impl(a); }
void flash_backward_f(const FlashBackward<float>& a) { backward_impl(a); }
void flash_backward_d(const FlashBackward<double>& a) { backward_impl(a); }

}  // namespace ember::cuda
