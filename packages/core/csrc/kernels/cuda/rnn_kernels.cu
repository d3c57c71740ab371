// The recurrent cells' fused gate passes on the GPU (kernels/backend.h, RnnKernels), float and
// double: one thread per (row, hidden unit) computes what the CPU kernel's inner loop does for it
// (kernels/cpu/rnn/gate_rows.cpp), the same formulas in the same order. The op bodies
// (ops/nn/nn_rnn.cpp) run the hidden GEMMs through GemmKernels' plain sgemm / dgemm here, as the
// CUDA table has no packed GEMM.
#include <cmath>

#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/cuda/rnn_kernels.h"

namespace ember::cuda {

namespace {

using rnn::Kind;
using rnn::LstmSeqRows;
using rnn::Rows;

// 1 / (1 + e^-|x|) folded by sign, so a large |x| gives 0 or 1 without overflow.
__device__ inline float sigm(float x) {
  const float e = ::expf(-::fabsf(x));
  return x >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e);
}
__device__ inline double sigm(double x) {
  const double e = ::exp(-::fabs(x));
  return x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}
__device__ inline float th(float x) { return ::tanhf(x); }
__device__ inline double th(double x) { return ::tanh(x); }

template <class T>
__global__ void cell_forward_kernel(Rows<T> p, int64_t B) {
  const Kind k = p.k;
  const int64_t H = p.H, G = k == rnn::kLstm ? 4 : k == rnn::kGru ? 3 : 1;
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < B * H; idx += step) {
    const int64_t b = idx / H, j = idx % H;
    const T* a = p.gi + b * G * H;
    const T* h = p.gh + b * G * H;
    T* out = p.hy + b * H;
    if (k == rnn::kTanh) {
      out[j] = th(h[j] + a[j]);
    } else if (k == rnn::kRelu) {
      const T v = h[j] + a[j];
      out[j] = v > T(0) ? v : (v != v ? v : T(0));
    } else if (k == rnn::kLstm) {
      const T ig = sigm(h[j] + a[j]);
      const T fg = sigm(h[H + j] + a[H + j]);
      const T gg = th(h[2 * H + j] + a[2 * H + j]);
      const T og = sigm(h[3 * H + j] + a[3 * H + j]);
      const T c = fg * p.cx[b * H + j] + ig * gg;
      p.cy[b * H + j] = c;
      out[j] = og * th(c);
    } else {
      const T r = sigm(h[j] + a[j]);
      const T z = sigm(h[H + j] + a[H + j]);
      const T n = th(a[2 * H + j] + h[2 * H + j] * r);
      out[j] = (p.hx[b * H + j] - n) * z + n;
    }
  }
}

template <class T>
__global__ void cell_backward_kernel(Rows<T> p, int64_t B) {
  const Kind k = p.k;
  const int64_t H = p.H, G = k == rnn::kLstm ? 4 : k == rnn::kGru ? 3 : 1;
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < B * H; idx += step) {
    const int64_t b = idx / H, j = idx % H;
    const T* a = p.gi + b * G * H;
    const T* h = p.gh + b * G * H;
    const T g = p.ghy ? p.ghy[b * H + j] : T(0);
    T* di = p.d_ih + b * G * H;
    T* dh = p.d_hh + b * G * H;
    if (k == rnn::kTanh || k == rnn::kRelu) {
      const T v = h[j] + a[j];
      const T y = th(v);
      const T d = k == rnn::kTanh ? g * (T(1) - y * y) : (v <= T(0) ? T(0) : g);  // NaN passes, as relu's
      di[j] = d;
      dh[j] = d;
    } else if (k == rnn::kLstm) {
      const T c0 = p.cx[b * H + j];
      const T ig = sigm(h[j] + a[j]);
      const T fg = sigm(h[H + j] + a[H + j]);
      const T gg = th(h[2 * H + j] + a[2 * H + j]);
      const T og = sigm(h[3 * H + j] + a[3 * H + j]);
      const T c = fg * c0 + ig * gg;
      const T tc = th(c);
      const T dc = (p.gcy ? p.gcy[b * H + j] : T(0)) + g * og * (T(1) - tc * tc);
      di[j] = dh[j] = dc * gg * ig * (T(1) - ig);
      di[H + j] = dh[H + j] = dc * c0 * fg * (T(1) - fg);
      di[2 * H + j] = dh[2 * H + j] = dc * ig * (T(1) - gg * gg);
      di[3 * H + j] = dh[3 * H + j] = g * tc * og * (T(1) - og);
      p.d_cx[b * H + j] = dc * fg;
    } else {
      const T r = sigm(h[j] + a[j]);
      const T z = sigm(h[H + j] + a[H + j]);
      const T hn = h[2 * H + j];
      const T n = th(a[2 * H + j] + hn * r);
      const T dn = g * (T(1) - z) * (T(1) - n * n);
      const T dz = g * (p.hx[b * H + j] - n) * z * (T(1) - z);
      di[j] = dh[j] = dn * hn * r * (T(1) - r);
      di[H + j] = dh[H + j] = dz;
      di[2 * H + j] = dn;
      dh[2 * H + j] = dn * r;
      p.d_hx[b * H + j] = g * z;
    }
  }
}

// The LSTM sequence step: the activated gates overwrite the hidden-gate row, tanh(c) is kept
// (xg null: the projection is already in the gates; bias null: none).
template <class T>
__global__ void lstm_seq_forward_kernel(LstmSeqRows<T> p, int64_t B) {
  const int64_t H = p.H;
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < B * H; idx += step) {
    const int64_t b = idx / H, j = idx % H;
    T* g = p.gates + b * 4 * H;
    T pre[4];
    for (int q = 0; q < 4; ++q) {
      pre[q] = g[q * H + j] + (p.xg ? p.xg[b * 4 * H + q * H + j] : T(0));
      if (p.bias) pre[q] += p.bias[q * H + j];
    }
    const T ig = sigm(pre[0]), fg = sigm(pre[1]), gg = th(pre[2]), og = sigm(pre[3]);
    g[j] = ig;
    g[H + j] = fg;
    g[2 * H + j] = gg;
    g[3 * H + j] = og;
    const T c = fg * p.c0[b * H + j] + ig * gg;
    const T t = th(c);
    p.c1[b * H + j] = c;
    p.tc[b * H + j] = t;
    p.hy[b * H + j] = og * t;
  }
}

template <class T>
__global__ void lstm_seq_backward_kernel(LstmSeqRows<T> p, int64_t B) {
  const int64_t H = p.H;
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < B * H; idx += step) {
    const int64_t b = idx / H, j = idx % H;
    const T* g = p.gates + b * 4 * H;
    const T ig = g[j], fg = g[H + j], gg = g[2 * H + j], og = g[3 * H + j], t = p.tc[b * H + j];
    const T dh = p.gy[b * H + j] + (p.gy_out ? p.gy_out[b * H + j] : T(0));
    const T dc = p.gc[b * H + j] + dh * og * (T(1) - t * t);
    T* d = p.d_g + b * 4 * H;
    d[j] = dc * gg * ig * (T(1) - ig);
    d[H + j] = dc * p.c0[b * H + j] * fg * (T(1) - fg);
    d[2 * H + j] = dc * ig * (T(1) - gg * gg);
    d[3 * H + j] = dh * t * og * (T(1) - og);
    p.d_c0[b * H + j] = dc * fg;
  }
}

template <class T>
void run_cells(const Rows<T>& p, int64_t B, bool backward) {
  const int64_t n = B * p.H;
  if (n <= 0) return;
  const LaunchDevice on(device_of(p.gh, "rnn cell"));
  if (backward) cell_backward_kernel<T><<<grid_for(n), 256, 0, current_stream(-1)>>>(p, B);
  else cell_forward_kernel<T><<<grid_for(n), 256, 0, current_stream(-1)>>>(p, B);
  check_launch("rnn cell");
}

template <class T>
void run_lstm_seq(const LstmSeqRows<T>& p, int64_t B, bool backward) {
  const int64_t n = B * p.H;
  if (n <= 0) return;
  const LaunchDevice on(device_of(p.gates, "lstm"));
  if (backward) lstm_seq_backward_kernel<T><<<grid_for(n), 256, 0, current_stream(-1)>>>(p, B);
  else lstm_seq_forward_kernel<T><<<grid_for(n), 256, 0, current_stream(-1)>>>(p, B);
  check_launch("lstm");
}

}  // namespace

void cell_rows_f(const Rows<float>& p, int64_t B, bool backward) { run_cells(p, B, backward); }
void cell_rows_d(const Rows<double>& p, int64_t B, bool backward) { run_cells(p, B, backward); }
void lstm_seq_f(const LstmSeqRows<float>& p, int64_t B, bool backward) { run_lstm_seq(p, B, backward); }
void lstm_seq_d(const LstmSeqRows<double>& p, int64_t B, bool backward) { run_lstm_seq(p, B, backward); }

}  // namespace ember::cuda
