// The device error records (kernels/cuda/device_error.h): one mapped pinned record per device,
// made at the first kernel that may report, and read by the host after each wait for the device.
#include "kernels/cuda/device_error.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <mutex>

#include "core/error.h"
#include "kernels/cuda/device_of.h"

namespace ember::cuda {

namespace {

constexpr int kMaxDevices = 64;
std::atomic<DeviceErrorRecord*> g_host[kMaxDevices];  // the host's view of each device's record
DeviceErrorRecord* g_device[kMaxDevices];             // the same records' device addresses
std::atomic<bool> g_any{false};                       // whether any record exists (the common case: none)

}  // namespace

DeviceErrorRecord* device_error_record(int device) {
  EMBER_CHECK(device >= 0 && device < kMaxDevices, "CUDA error: device ", device, " has no error record");
  static std::mutex mu;
  const std::lock_guard<std::mutex> g(mu);
  if (!g_host[device]) {
    const LaunchDevice on(device);
    void* host = nullptr;
    void* dev = nullptr;
    check_cuda(cudaHostAlloc(&host, sizeof(DeviceErrorRecord), cudaHostAllocMapped | cudaHostAllocPortable),
               "the device error record");
    check_cuda(cudaHostGetDevicePointer(&dev, host, 0), "the device error record");
    auto* r = static_cast<DeviceErrorRecord*>(host);
    r->value = r->dim = r->size = 0;
    r->code = kNoDeviceError;
    g_device[device] = static_cast<DeviceErrorRecord*>(dev);
    g_host[device].store(r);
    g_any = true;
  }
  return g_device[device];
}

void raise_device_errors() {
  if (!g_any.load(std::memory_order_relaxed)) return;
  for (auto& slot : g_host) {
    DeviceErrorRecord* r = slot.load();
    if (!r) continue;
    volatile DeviceErrorRecord* v = r;
    const int32_t code = v->code;
    if (code == kNoDeviceError) continue;
    const int64_t value = v->value, dim = v->dim, size = v->size;
    v->code = kNoDeviceError;
    switch (code) {
      case kTargetOutOfBounds:
        fail(ErrorKind::Index, "Target ", value, " is out of bounds.");
      case kIndexOutOfRange:
        fail(ErrorKind::Index, "index out of range in self");
      case kIndexOutOfBounds:
        fail(ErrorKind::Index, "index ", value, " is out of bounds for dimension ", dim, " with size ", size);
      case kScatterGatherOutOfBounds:
        fail(ErrorKind::Runtime, "index ", value, " is out of bounds for dimension ", dim, " with size ", size);
      case kIndexCopyOutOfBounds:
        fail(ErrorKind::Index, "index_copy_(): index ", value, " is out of bounds for dimension ", dim, " with size ",
             size);
      case kIndicesOutOfDataBounds:
        fail(ErrorKind::Runtime, "INDICES element is out of DATA bounds, id=", value, " axis_dim=", size);
      case kTakeOutOfRange:
        fail(ErrorKind::Index, "out of range: tried to access index ", value, " on a tensor of ", size, " elements.");
      default:
        break;
    }
    fail(ErrorKind::Runtime, "CUDA error: a kernel reported error ", code, " (value ", value, ")");
  }
}

}  // namespace ember::cuda
