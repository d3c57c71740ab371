// Convolution on the GPU as the CPU's generic path does it (kernels/cpu/conv/conv_kernels.cpp), a
// chunk of samples at a time: im2col of the whole chunk into device scratch, then per group one
// strided-batched cuBLAS GEMM over the chunk (row-major, through GemmKernels' convention:
// kernels/cuda/cublas_gemm.h); the adjoint GEMMs then col2im; the weight gradient as per-sample
// products summed in sample order. col2im is a gather (each image element sums its kernel taps in
// the CPU's order), so no atomics. float32 and float64; the op widens the half types to float32
// (ops/nn/nn_conv.cpp), other dtypes raise. float32 products use TF32 tensor cores unless
// ember.backends.cudnn.allow_tf32 is off, as PyTorch's cuDNN convolutions do.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/cuda/conv_kernels.h"
#include "kernels/cuda/cublas_gemm.h"
#include "kernels/cuda/device_scratch.h"
#include "kernels/cuda/pointwise_launch.cuh"

namespace ember::cuda {

namespace {

constexpr int kBlock = 256;

// nb samples: col[n][(c*K + kk) * L + l] = x[n, c, l*s - p + kk*d] (0 outside the image).
template <class T>
__global__ void im2col_kernel(const T* x, T* col, conv::Geometry g, int64_t nb) {
  const int64_t K = g.k[0] * g.k[1] * g.k[2], L = g.col[0] * g.col[1] * g.col[2];
  const int64_t I = g.img[0] * g.img[1] * g.img[2], per = g.img_c * K * L, total = nb * per;
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t n = idx / per, l = idx % L, ck = idx % per / L, kk = ck % K, c = n * g.img_c + ck / K;
    const int64_t e = kk % g.k[2], b = (kk / g.k[2]) % g.k[1], a = kk / (g.k[1] * g.k[2]);
    const int64_t o2 = l % g.col[2], o1 = (l / g.col[2]) % g.col[1], o0 = l / (g.col[1] * g.col[2]);
    const int64_t i0 = o0 * g.s[0] - g.p[0] + a * g.d[0], i1 = o1 * g.s[1] - g.p[1] + b * g.d[1],
                  i2 = o2 * g.s[2] - g.p[2] + e * g.d[2];
    const bool in = i0 >= 0 && i0 < g.img[0] && i1 >= 0 && i1 < g.img[1] && i2 >= 0 && i2 < g.img[2];
    col[idx] = in ? x[c * I + (i0 * g.img[1] + i1) * g.img[2] + i2] : T(0);
  }
}

// The position o along one dim whose tap t reads image position i (o*s - p + t*d == i), or -1.
__device__ inline int64_t tap_source(int64_t i, int64_t t, int64_t s, int64_t p, int64_t d, int64_t out) {
  const int64_t u = i + p - t * d;
  if (u < 0 || u % s != 0) return -1;
  const int64_t o = u / s;
  return o < out ? o : -1;
}

// nb samples' adjoint: x[n, c, i] = the sum of col[n][(c*K + kk) * L + l] over the taps (kk, l)
// that read i, in the CPU's col2im order (kernel positions ascending; each reads i at most once).
template <class T>
__global__ void col2im_kernel(const T* col, T* x, conv::Geometry g, int64_t nb) {
  const int64_t K = g.k[0] * g.k[1] * g.k[2], L = g.col[0] * g.col[1] * g.col[2];
  const int64_t I = g.img[0] * g.img[1] * g.img[2], total = nb * g.img_c * I;
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = idx / I, i = idx % I;
    const int64_t i2 = i % g.img[2], i1 = (i / g.img[2]) % g.img[1], i0 = i / (g.img[1] * g.img[2]);
    T acc = T(0);
    for (int64_t a = 0; a < g.k[0]; ++a) {
      const int64_t o0 = tap_source(i0, a, g.s[0], g.p[0], g.d[0], g.col[0]);
      if (o0 < 0) continue;
      for (int64_t b = 0; b < g.k[1]; ++b) {
        const int64_t o1 = tap_source(i1, b, g.s[1], g.p[1], g.d[1], g.col[1]);
        if (o1 < 0) continue;
        for (int64_t e = 0; e < g.k[2]; ++e) {
          const int64_t o2 = tap_source(i2, e, g.s[2], g.p[2], g.d[2], g.col[2]);
          if (o2 < 0) continue;
          const int64_t kk = (a * g.k[1] + b) * g.k[2] + e;
          acc += col[(c * K + kk) * L + (o0 * g.col[1] + o1) * g.col[2] + o2];
        }
      }
    }
    x[idx] = acc;
  }
}

// out (N, C, L) = bias[c] everywhere: the forward GEMMs then add onto it (beta = 1).
template <class T>
__global__ void fill_bias(T* out, const T* bias, int64_t total, int64_t C, int64_t L) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = bias[(i / L) % C];
}

// B strided-batched products (one cuBLAS call), each as GemmKernels' row-major gemm; beta 1 adds.
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, int64_t sa, const float* B,
          int64_t ldb, int64_t sb, float beta, float* C, int64_t ldc, int64_t sc, int64_t batch) {
  sgemm_batched(ta, tb, M, N, K, 1.0f, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const double* A, int64_t lda, int64_t sa, const double* B,
          int64_t ldb, int64_t sb, double beta, double* C, int64_t ldc, int64_t sc, int64_t batch) {
  dgemm_batched(ta, tb, M, N, K, 1.0, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}

// A 1x1 kernel with unit stride and no padding reads the image as it is.
bool is_pointwise(const conv::Geometry& g) {
  for (int i = 0; i < 3; ++i)
    if (g.k[i] != 1 || g.s[i] != 1 || g.p[i] != 0 || g.img[i] != g.col[i]) return false;
  return true;
}

template <class T>
void zero(T* p, int64_t n) {
  if (n > 0)
    EMBER_CHECK(cudaMemsetAsync(p, 0, size_t(n) * sizeof(T), current_stream(-1)) == cudaSuccess,
                "CUDA error: cudaMemsetAsync (conv)");
}

// How many samples share one pass: their columns (per_sample elements each) within 256 MiB of scratch.
int64_t chunk_of(const conv::Geometry& g, int64_t per_sample, size_t elem) {
  const int64_t budget = int64_t(256 << 20) / int64_t(elem);
  return std::max<int64_t>(1, std::min<int64_t>(g.N, per_sample > 0 ? budget / per_sample : g.N));
}

template <class T>
void im2col(const T* x, T* col, const conv::Geometry& g, int64_t nb) {
  im2col_kernel<T>
      <<<grid_for(nb * g.img_c * g.k_numel() * g.col_numel()), kBlock, 0, current_stream(-1)>>>(x, col, g, nb);
  check_launch("conv im2col kernel");
}

// Each pass takes `chunk` samples: one im2col over all of them, then per group one batched GEMM
// (the weight shared, stride 0), so a batch costs a few launches, not a few per sample.
template <class T>
void forward_impl(const T* img, const T* w, const T* bias, T* out, const conv::Geometry& g, int device) {
  const int64_t K = g.k_numel(), L = g.col_numel(), I = g.img_numel();
  const int64_t Cg = g.img_c / g.groups, Og = g.col_c / g.groups, CKL = g.img_c * K * L;
  const bool direct = is_pointwise(g);
  const int64_t chunk = direct ? g.N : chunk_of(g, CKL, sizeof(T));
  const Scratch buf(direct ? 0 : size_t(chunk * CKL) * sizeof(T), device);
  const int64_t total = g.N * g.col_c * L;
  if (bias) {
    fill_bias<T><<<grid_for(total), kBlock, 0, current_stream(-1)>>>(out, bias, total, g.col_c, L);
    check_launch("conv bias kernel");
  } else if (Cg * K == 0) {
    zero(out, total);
  }
  if (Cg * K == 0 || L == 0) return;
  for (int64_t n0 = 0; n0 < g.N; n0 += chunk) {
    const int64_t nb = std::min(chunk, g.N - n0);
    const T* cb = img + n0 * g.img_c * I;  // a 1x1 convolution's columns are the image itself (CKL == C*I)
    if (!direct) {
      im2col(cb, buf.as<T>(), g, nb);
      cb = buf.as<T>();
    }
    T* y = out + n0 * g.col_c * L;
    for (int64_t gi = 0; gi < g.groups; ++gi)
      gemm(false, false, Og, L, Cg * K, w + gi * Og * Cg * K, Cg * K, 0, cb + gi * Cg * K * L, L, CKL, T(bias ? 1 : 0),
           y + gi * Og * L, L, g.col_c * L, nb);
  }
}

template <class T>
void backward_img_impl(const T* cols, const T* w, T* out, const conv::Geometry& g, int device) {
  const int64_t K = g.k_numel(), L = g.col_numel(), I = g.img_numel();
  const int64_t Cg = g.img_c / g.groups, Og = g.col_c / g.groups, CKL = g.img_c * K * L;
  const bool direct = is_pointwise(g);
  const int64_t chunk = direct ? g.N : chunk_of(g, CKL, sizeof(T));
  const Scratch buf(direct ? 0 : size_t(chunk * CKL) * sizeof(T), device);
  for (int64_t n0 = 0; n0 < g.N; n0 += chunk) {
    const int64_t nb = std::min(chunk, g.N - n0);
    T* x = out + n0 * g.img_c * I;
    T* cb = direct ? x : buf.as<T>();
    if (Og == 0) zero(cb, nb * CKL);
    else
      for (int64_t gi = 0; gi < g.groups; ++gi)
        gemm(true, false, Cg * K, L, Og, w + gi * Og * Cg * K, Cg * K, 0, cols + (n0 * g.col_c + gi * Og) * L, L,
             g.col_c * L, T(0), cb + gi * Cg * K * L, L, CKL, nb);
    if (!direct) {
      col2im_kernel<T><<<grid_for(nb * g.img_c * I), kBlock, 0, current_stream(-1)>>>(cb, x, g, nb);
      check_launch("conv col2im kernel");
    }
  }
}

// gw[j] (+)= the sum of part[i][j] over i < nb, in sample order (the CPU's beta = 1 accumulation
// from zero); the first chunk writes gw, so it needs no zero fill.
template <class T>
__global__ void add_samples(const T* part, T* gw, int64_t n, int64_t nb, bool first) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < n; j += int64_t(gridDim.x) * blockDim.x) {
    T acc = first ? T(0) : gw[j];
    for (int64_t i = 0; i < nb; ++i) acc += part[i * n + j];
    gw[j] = acc;
  }
}

// Each pass: the chunk's columns, every sample's weight-gradient product at once (one batched GEMM
// per group into per-sample parts), then the parts summed into the gradient in sample order.
template <class T>
void weight_impl(const T* img, const T* cols, T* gw, const conv::Geometry& g, int device) {
  const int64_t K = g.k_numel(), L = g.col_numel(), I = g.img_numel();
  const int64_t Cg = g.img_c / g.groups, Og = g.col_c / g.groups, CK = Cg * K, CKL = g.img_c * K * L;
  const bool direct = is_pointwise(g);
  if (L == 0 || CK == 0 || g.N == 0) {
    zero(gw, g.col_c * CK);
    return;
  }
  const int64_t W = g.col_c * CK;  // one sample's weight gradient, every group
  const int64_t chunk = chunk_of(g, (direct ? 0 : CKL) + W, sizeof(T));
  const Scratch buf(direct ? 0 : size_t(chunk * CKL) * sizeof(T), device);
  const Scratch part(size_t(chunk * W) * sizeof(T), device);
  for (int64_t n0 = 0; n0 < g.N; n0 += chunk) {
    const int64_t nb = std::min(chunk, g.N - n0);
    const T* cb = img + n0 * g.img_c * I;
    if (!direct) {
      im2col(cb, buf.as<T>(), g, nb);
      cb = buf.as<T>();
    }
    // part[i] (Og x CK per group) = grad[i] (Og x L) @ cols[i]^T (L x CK)
    for (int64_t gi = 0; gi < g.groups; ++gi)
      gemm(false, true, Og, CK, L, cols + (n0 * g.col_c + gi * Og) * L, L, g.col_c * L, cb + gi * CK * L, L, CKL, T(0),
           part.as<T>() + gi * Og * CK, CK, W, nb);
    add_samples<T><<<grid_for(W), kBlock, 0, current_stream(-1)>>>(part.as<T>(), gw, W, nb, n0 == 0);
    check_launch("conv weight-gradient sum");
  }
}

// f(float{}) or f(double{}); other dtypes raise (the CPU's integer convolutions have no CUDA kernel)
template <class F>
void dispatch(ScalarType t, const char* name, const F& f) {
  if (t == ScalarType::Float32) f(float{});
  else if (t == ScalarType::Float64) f(double{});
  else dtype_not_implemented(name, t);
}

int device_index(const Tensor& t) { return t.device().index < 0 ? 0 : t.device().index; }

}  // namespace

void conv_img_to_cols(const Tensor& img, const Tensor& weight, const Tensor& bias, const Tensor& out,
                      const conv::Geometry& g) {
  if (out.numel() == 0) return;
  const int device = device_index(img);
  const LaunchDevice on(device);
  const ConvMath math;  // float32 products in TF32 where ember.backends.cudnn.allow_tf32 (PyTorch's default)
  dispatch(img.dtype(), g.nsp == 3 ? "slow_conv3d_cuda" : "slow_conv2d_cuda", [&](auto tag) {
    using T = decltype(tag);
    forward_impl<T>(img.data<T>(), weight.data<T>(), bias.defined() ? bias.data<T>() : nullptr, out.data<T>(), g,
                    device);
  });
}

void conv_cols_to_img(const Tensor& cols, const Tensor& weight, const Tensor& out, const conv::Geometry& g) {
  if (out.numel() == 0) return;
  const int device = device_index(cols);
  const LaunchDevice on(device);
  const ConvMath math;  // float32 products in TF32 where ember.backends.cudnn.allow_tf32 (PyTorch's default)
  dispatch(cols.dtype(), g.nsp == 3 ? "slow_conv_transpose3d_out_cuda" : "slow_conv_transpose2d_out_cuda",
           [&](auto tag) {
             using T = decltype(tag);
             backward_img_impl<T>(cols.data<T>(), weight.data<T>(), out.data<T>(), g, device);
           });
}

void conv_weight_grad(const Tensor& img, const Tensor& cols, const Tensor& out, const conv::Geometry& g) {
  if (out.numel() == 0) return;
  const int device = device_index(img);
  const LaunchDevice on(device);
  const ConvMath math;  // float32 products in TF32 where ember.backends.cudnn.allow_tf32 (PyTorch's default)
  dispatch(img.dtype(), "slow_conv2d_backward_cuda", [&](auto tag) {
    using T = decltype(tag);
    weight_impl<T>(img.data<T>(), cols.data<T>(), out.data<T>(), g, device);
  });
}

}  // namespace ember::cuda
