#include <cstring>

#include "kernels/cuda/fill_kernels.h"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/element_bytes.h"

namespace ember::cuda {

namespace {

// W: the unsigned word of the element's size (kernels/element_bytes.h).
template <class W>
__global__ void fill_kernel(W* out, int64_t n, W v) {
  const int64_t stride = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = v;
}

}  // namespace

void fill(void* out, int64_t n, size_t itemsize, const void* value) {
  if (n <= 0) return;
  const LaunchDevice on(device_of(out, "fill"));  // the tensor's device and its stream, whatever is current
  by_itemsize(itemsize, [&](auto w) {
    using W = decltype(w);
    std::memcpy(&w, value, sizeof(W));
    fill_kernel<W><<<grid_for(n), 256, 0, current_stream(-1)>>>(static_cast<W*>(out), n, w);
  });
  check_launch("fill");
}

}  // namespace ember::cuda
