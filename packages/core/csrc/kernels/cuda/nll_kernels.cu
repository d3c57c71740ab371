// nll_loss on the GPU: the op body has checked the targets on the host (ops/nn/nn_nll_loss.cpp);
// they, the class weights and the incoming gradient go over to the device once per call, then
// one kernel writes the losses (and one block sums them in double, as the CPU kernel does) or the
// gradient's one entry per row.
#include <vector>

#include "kernels/cuda/device_of.h"
#include "kernels/cuda/device_scratch.h"
#include "kernels/cuda/nll_kernels.h"
#include "kernels/cuda/pointwise_launch.cuh"

namespace ember::cuda {

namespace {

constexpr int kBlock = 256;

template <class T>
__global__ void forward_kernel(const T* x, T* out, T* total, const int64_t* target, const double* weight, int64_t n,
                               int64_t c, int64_t ignore_index, bool per_sample, bool mean) {
  __shared__ double sums[kBlock], wsums[kBlock];
  double sum = 0, wsum = 0;
  for (int64_t i = threadIdx.x; i < n; i += kBlock) {
    const int64_t cls = target[i];
    double v = 0;
    if (cls != ignore_index) {
      v = -weight[cls] * static_cast<double>(static_cast<opmath_t<T>>(x[i * c + cls]));
      wsum += weight[cls];
    }
    if (per_sample) out[i] = static_cast<T>(v);
    sum += v;
  }
  sums[threadIdx.x] = sum;
  wsums[threadIdx.x] = wsum;
  __syncthreads();
  for (int s = kBlock / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      sums[threadIdx.x] += sums[threadIdx.x + s];
      wsums[threadIdx.x] += wsums[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    if (!per_sample) out[0] = static_cast<T>(mean ? sums[0] / wsums[0] : sums[0]);  // mean: 0/0 is nan
    total[0] = static_cast<T>(per_sample ? 0.0 : wsums[0]);
  }
}

template <class T>
__global__ void backward_kernel(T* dx, const int64_t* target, const double* weight, const double* grad, double scale,
                                int64_t n, int64_t c, int64_t ignore_index, bool per_sample) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t cls = target[i];
    if (cls == ignore_index) continue;
    dx[i * c + cls] = static_cast<T>(-weight[cls] * (per_sample ? grad[i] : grad[0]) * scale);
  }
}

}  // namespace

void nll_forward(ScalarType dt, const loss::Nll& a, const void* x, void* out, void* total) {
  const int device = device_of(total, "nll_loss");
  const LaunchDevice on(device);
  const Uploaded target(a.target, size_t(a.n) * sizeof(int64_t), device);
  const Uploaded weight(a.weight, size_t(a.c) * sizeof(double), device);
  EMBER_DISPATCH_FLOAT(dt, "nll_loss_forward_cuda", [&] {
    forward_kernel<scalar_t><<<1, kBlock, 0, current_stream(-1)>>>(
        static_cast<const scalar_t*>(x), static_cast<scalar_t*>(out), static_cast<scalar_t*>(total),
        target.as<int64_t>(), weight.as<double>(), a.n, a.c, a.ignore_index, a.per_sample, a.reduction == 1);
  });
  check_launch("nll_loss kernel");
}

void nll_backward(ScalarType dt, const loss::Nll& a, const double* grad, double scale, void* dx) {
  if (a.n == 0) return;
  const int device = device_of(dx, "nll_loss_backward");
  const LaunchDevice on(device);
  const Uploaded target(a.target, size_t(a.n) * sizeof(int64_t), device);
  const Uploaded weight(a.weight, size_t(a.c) * sizeof(double), device);
  const Uploaded g(grad, size_t(a.per_sample ? a.n : 1) * sizeof(double), device);
  EMBER_DISPATCH_FLOAT(dt, "nll_loss_backward_cuda", [&] {
    backward_kernel<scalar_t><<<grid_for(a.n), kBlock, 0, current_stream(-1)>>>(
        static_cast<scalar_t*>(dx), target.as<int64_t>(), weight.as<double>(), g.as<double>(), scale, a.n, a.c,
        a.ignore_index, a.per_sample);
  });
  check_launch("nll_loss backward kernel");
}

}  // namespace ember::cuda
