// nll_loss on the GPU: targets, class weights (null: all 1), the incoming gradient and the forward's weight sum
// are read where they live, on the device (ops/nn/nn_nll_loss.cpp), so the op never waits for the
// device. A target out of range is reported through the device's error record (raised as the CPU
// op's IndexError at the next wait; kernels/cuda/device_error.h) and read nowhere: its loss is nan.
// One kernel writes the losses (one block sums them in double, as the CPU kernel does) or the
// gradient's one entry per row.
#include <cmath>

#include "kernels/cuda/device_error.cuh"
#include "kernels/cuda/device_of.h"
#include "kernels/cuda/nll_kernels.h"
#include "kernels/cuda/pointwise_launch.cuh"

namespace ember::cuda {

namespace {

constexpr int kBlock = 256;

template <class T>
__global__ void forward_kernel(const T* x, T* out, T* total, const int64_t* target, const double* weight, int64_t n,
                               int64_t c, int64_t ignore_index, bool per_sample, bool mean, DeviceErrorRecord* err) {
  __shared__ double sums[kBlock], wsums[kBlock];
  double sum = 0, wsum = 0;
  for (int64_t i = threadIdx.x; i < n; i += kBlock) {
    const int64_t cls = target[i];
    double v = 0;
    if (cls != ignore_index && (cls < 0 || cls >= c)) {
      report_device_error(err, kTargetOutOfBounds, cls);
      v = NAN;
      wsum = NAN;
    } else if (cls != ignore_index) {
      const double wc = weight ? weight[cls] : 1.0;
      v = -wc * static_cast<double>(static_cast<opmath_t<T>>(x[i * c + cls]));
      wsum += wc;
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
__global__ void backward_kernel(T* dx, const int64_t* target, const double* weight, const T* grad, const T* total,
                                bool mean, int64_t n, int64_t c, int64_t ignore_index, bool per_sample,
                                DeviceErrorRecord* err) {
  const double scale = mean ? 1.0 / static_cast<double>(static_cast<opmath_t<T>>(total[0])) : 1.0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t cls = target[i];
    if (cls == ignore_index) continue;
    if (cls < 0 || cls >= c) {
      report_device_error(err, kTargetOutOfBounds, cls);
      continue;
    }
    const double gv = static_cast<double>(static_cast<opmath_t<T>>(per_sample ? grad[i] : grad[0]));
    dx[i * c + cls] = static_cast<T>(-(weight ? weight[cls] : 1.0) * gv * scale);
  }
}

}  // namespace

void nll_forward(ScalarType dt, const loss::Nll& a, const void* x, void* out, void* total) {
  const int device = device_of(total, "nll_loss");
  const LaunchDevice on(device);
  DeviceErrorRecord* err = device_error_record(device);
  EMBER_DISPATCH_FLOAT(dt, "nll_loss_forward_cuda", [&] {
    forward_kernel<scalar_t><<<1, kBlock, 0, current_stream(-1)>>>(
        static_cast<const scalar_t*>(x), static_cast<scalar_t*>(out), static_cast<scalar_t*>(total), a.target, a.weight,
        a.n, a.c, a.ignore_index, a.per_sample, a.reduction == 1, err);
  });
  check_launch("nll_loss kernel");
}

void nll_backward(ScalarType dt, const loss::Nll& a, const void* grad, const void* total_weight, void* dx) {
  if (a.n == 0) return;
  const int device = device_of(dx, "nll_loss_backward");
  const LaunchDevice on(device);
  DeviceErrorRecord* err = device_error_record(device);
  EMBER_DISPATCH_FLOAT(dt, "nll_loss_backward_cuda", [&] {
    backward_kernel<scalar_t><<<grid_for(a.n), kBlock, 0, current_stream(-1)>>>(
        static_cast<scalar_t*>(dx), a.target, a.weight, static_cast<const scalar_t*>(grad),
        static_cast<const scalar_t*>(total_weight), a.reduction == 1, a.n, a.c, a.ignore_index, a.per_sample, err);
  });
  check_launch("nll_loss backward kernel");
}

}  // namespace ember::cuda
