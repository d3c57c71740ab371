#include <cuda_runtime_api.h>

#include <cstring>

#include "core/error.h"
#include "kernels/cuda/fill_kernels.h"

namespace ember::cuda {

namespace {

template <int Bytes>
struct alignas(Bytes <= 8 ? Bytes : 16) Element {
  unsigned char b[Bytes];
};

template <int Bytes>
__global__ void fill_kernel(Element<Bytes>* out, int64_t n, Element<Bytes> v) {
  const int64_t stride = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = v;
}

template <int Bytes>
void launch(void* out, int64_t n, const void* value) {
  Element<Bytes> v;
  std::memcpy(v.b, value, Bytes);
  constexpr int kThreads = 256;
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
  fill_kernel<Bytes><<<grid, kThreads>>>(static_cast<Element<Bytes>*>(out), n, v);
  const cudaError_t e = cudaGetLastError();
  EMBER_CHECK(e == cudaSuccess, "CUDA error: ", cudaGetErrorString(e), " (fill)");
}

}  // namespace

void fill(void* out, int64_t n, size_t itemsize, const void* value) {
  if (n <= 0) return;
  switch (itemsize) {
    case 1:
      return launch<1>(out, n, value);
    case 2:
      return launch<2>(out, n, value);
    case 4:
      return launch<4>(out, n, value);
    case 8:
      return launch<8>(out, n, value);
    case 16:
      return launch<16>(out, n, value);
    default:
      EMBER_CHECK(false, "fill: no CUDA kernel for ", itemsize, "-byte elements");
  }
}

}  // namespace ember::cuda
