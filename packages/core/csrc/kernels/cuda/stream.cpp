// The per-thread current stream of each device (kernels/cuda/stream.h). Devices are few (an int8
// index), so a fixed array per thread holds them; a new thread starts on the default stream, as
// in PyTorch.
#include "kernels/cuda/stream.h"

#include "core/error.h"

namespace ember::cuda {

namespace {
constexpr int kMaxDevices = 128;  // Device::index is an int8_t
thread_local cudaStream_t t_current[kMaxDevices] = {};

int resolve(int device) {
  if (device >= 0) {
    EMBER_CHECK(device < kMaxDevices, "CUDA error: invalid device ordinal");
    return device;
  }
  int d = 0;
  EMBER_CHECK(cudaGetDevice(&d) == cudaSuccess, "CUDA error: cannot read the current device");
  return d;
}
}  // namespace

cudaStream_t current_stream(int device) { return t_current[resolve(device)]; }

void set_current_stream(int device, cudaStream_t s) { t_current[resolve(device)] = s; }

}  // namespace ember::cuda
