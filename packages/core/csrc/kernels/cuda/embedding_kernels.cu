// embedding's row gather and backward, one_hot's ones, on the GPU (kernels/cpu/embedding/ on the
// CPU). The gather moves each row as the widest word its size and alignment allow; the backward
// adds each gradient row into its table row atomically (in op-math, rounded per addition as the
// CPU loop does; the order of a row's additions is the device's), after counting each index's
// uses when scale_grad_by_freq divides by them. An index out of range is reported through the
// device's error record (raised as the CPU's IndexError at the next wait) and never read: its
// output row is zeros, its gradient dropped.
#include "kernels/cuda/device_error.cuh"
#include "kernels/cuda/embedding_kernels.h"
#include "kernels/cuda/index_device.cuh"

namespace ember::cuda {

using namespace idx;

namespace {

template <class W>
__global__ void gather_rows_kernel(const W* weight, const int64_t* ip, int64_t rows, int64_t words, int64_t total,
                                   W* out, DeviceErrorRecord* err) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e / words, k = e % words, r = ip[i];
    if (r < 0 || r >= rows) {
      if (k == 0) report_device_error(err, kIndexOutOfRange, r);
      out[e] = W(0);
      continue;
    }
    out[e] = weight[r * words + k];
  }
}

__global__ void count_kernel(const int64_t* ip, int64_t n, int64_t rows, int64_t* counts) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    if (ip[i] >= 0 && ip[i] < rows) atomicAdd(reinterpret_cast<unsigned long long*>(counts + ip[i]), 1ull);
}

template <class D>
__global__ void backward_kernel(const D* grad, const int64_t* ip, int64_t n, int64_t dim, int64_t rows,
                                int64_t padding_idx, const int64_t* counts, D* out, DeviceErrorRecord* err) {
  using A = acc_t<D>;
  const int64_t total = n * dim;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e / dim, k = e % dim, r = ip[i];
    if (r < 0 || r >= rows) {
      if (k == 0) report_device_error(err, kIndexOutOfRange, r);
      continue;
    }
    if (r == padding_idx) continue;
    D* o = out + r * dim + k;
    if (counts) atomic_add_scaled(o, grad[e], A(1) / static_cast<A>(counts[r]));
    else atomic_add(o, grad[e]);
  }
}

__global__ void one_hot_kernel(const int64_t* ip, int64_t n, int64_t classes, int64_t* out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    out[i * classes + ip[i]] = 1;
}

}  // namespace

void embedding_gather_rows(const char* weight, const int64_t* idx, int64_t n, int64_t rows, int64_t dim,
                           size_t row_bytes, char* out) {
  (void)dim;
  if (n == 0 || row_bytes == 0) return;
  const int device = device_of(out, "embedding");
  const LaunchDevice on(device);
  DeviceErrorRecord* err = device_error_record(device);
  const uintptr_t align = reinterpret_cast<uintptr_t>(weight) | reinterpret_cast<uintptr_t>(out) | row_bytes;
  auto launch = [&](auto tag) {
    using W = decltype(tag);
    const int64_t words = static_cast<int64_t>(row_bytes / sizeof(W)), total = n * words;
    gather_rows_kernel<W><<<blocks_for(total), kBlock, 0, current_stream(-1)>>>(
        reinterpret_cast<const W*>(weight), idx, rows, words, total, reinterpret_cast<W*>(out), err);
  };
  if (align % 8 == 0) launch(uint64_t{});
  else if (align % 4 == 0) launch(uint32_t{});
  else if (align % 2 == 0) launch(uint16_t{});
  else launch(uint8_t{});
  check_launch("embedding kernel");
}

void embedding_backward(ScalarType dt, const void* grad, const int64_t* idx, int64_t n, int64_t dim,
                        int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq, void* out) {
  if (n == 0 || dim == 0 || num_weights == 0) return;
  const int device = device_of(out, "embedding_backward");
  const LaunchDevice on(device);
  DeviceErrorRecord* err = device_error_record(device);
  DeviceArray<int64_t> counts(scale_grad_by_freq ? num_weights : 1, device);
  if (scale_grad_by_freq) {
    counts.zero();
    count_kernel<<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(idx, n, num_weights, counts.get());
  }
  EMBER_DISPATCH_FLOAT(dt, "embedding_backward", [&] {
    using D = dev_t<scalar_t>;
    backward_kernel<D><<<blocks_for(n * dim), kBlock, 0, current_stream(-1)>>>(
        static_cast<const D*>(grad), idx, n, dim, num_weights, padding_idx, scale_grad_by_freq ? counts.get() : nullptr,
        static_cast<D*>(out), err);
  });
  check_launch("embedding backward kernel");
}

void one_hot(const int64_t* idx, int64_t n, int64_t classes, int64_t* out) {
  if (n == 0 || classes <= 0) return;
  const LaunchDevice on(device_of(out, "one_hot"));
  one_hot_kernel<<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(idx, n, classes, out);
  check_launch("one_hot kernel");
}

}  // namespace ember::cuda
