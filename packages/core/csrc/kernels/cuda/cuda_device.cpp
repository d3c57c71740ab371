// CUDA devices in an EMBER_CUDA build: lazy initialisation with PyTorch's errors, the device
// count, and one caching allocator (core/caching_allocator.h) per device over cudaMalloc. Nothing
// touches the driver before the first CUDA tensor or query, so a process that forks before
// (a DataLoader) is safe, and a machine without a driver imports ember and reports no GPU.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/caching_allocator.h"
#include "core/error.h"
#include "kernels/cuda/cuda_runtime_api.h"
#include "kernels/cuda/device_error.h"
#include "kernels/cuda/device_of.h"
#include "kernels/cuda/device_scratch.h"
#include "kernels/cuda/stream.h"
#include "kernels/device_transfer.h"

namespace ember {

bool cuda_is_compiled() { return true; }

namespace {

using cuda::check_cuda;
using cuda::cuda_fail;

// The first query's answer, kept: the count, or why there is no device.
struct Init {
  cudaError_t status = cudaSuccess;
  int count = 0;
};

std::atomic<bool> g_initialized{false};

const Init& init() {
  static const Init i = [] {
    g_initialized = true;
    Init r;
    r.status = cudaGetDeviceCount(&r.count);
    if (r.status != cudaSuccess) {
      r.count = 0;
      cudaGetLastError();
    }
    return r;
  }();
  return i;
}

using DeviceGuard = cuda::LaunchDevice;  // the device made current for a scope

class CudaMemory : public DeviceMemory {
 public:
  explicit CudaMemory(int index) : index_(index) {}
  void* raw_alloc(size_t n) override {
    DeviceGuard g(index_);
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, n);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      return nullptr;
    }
    check_cuda(e, "cudaMalloc");
    return p;
  }
  void raw_free(void* p) override {
    DeviceGuard g(index_);
    check_cuda(cudaFree(p), "cudaFree");
  }
  int64_t record_event(StreamId stream) override {
    DeviceGuard g(index_);
    cudaEvent_t ev;
    check_cuda(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaEventRecord(ev, reinterpret_cast<cudaStream_t>(stream)), "cudaEventRecord");
    return reinterpret_cast<int64_t>(ev);
  }
  bool event_done(int64_t event) override {
    auto ev = reinterpret_cast<cudaEvent_t>(event);
    if (!cuda::query_done(cudaEventQuery(ev), "cudaEventQuery")) return false;
    cudaEventDestroy(ev);
    return true;
  }
  void synchronize() override {
    DeviceGuard g(index_);
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  size_t total_memory() const override { return mem_info().second; }
  size_t free_memory() const override { return mem_info().first; }
  int device_index() const override { return index_; }

 private:
  std::pair<size_t, size_t> mem_info() const {
    DeviceGuard g(index_);
    size_t free = 0, total = 0;
    check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return {free, total};
  }
  int index_;
};

CachingAllocator& allocator(int index) {
  static std::mutex mu;
  static auto* allocators = new std::vector<std::unique_ptr<CachingAllocator>>();  // leaked: frees run at exit
  std::lock_guard<std::mutex> g(mu);
  if (allocators->empty()) allocators->resize(static_cast<size_t>(init().count));
  auto& a = (*allocators)[static_cast<size_t>(index)];
  if (!a) {
    // PYTORCH_CUDA_ALLOC_CONF (or its newer name PYTORCH_ALLOC_CONF), read once per process
    static const size_t max_split = [] {
      const char* conf = std::getenv("PYTORCH_CUDA_ALLOC_CONF");
      return max_split_size_from_config(conf ? conf : std::getenv("PYTORCH_ALLOC_CONF"));
    }();
    a = std::make_unique<CachingAllocator>(std::make_unique<CudaMemory>(index));
    a->set_max_split_size(max_split);
  }
  return *a;
}

}  // namespace

int cuda_device_count() { return init().count; }

int cuda_device_index(int index) {
  const Init& i = init();
  if (i.status == cudaErrorInsufficientDriver || i.status == cudaErrorNoDevice) {
    int driver = 0;
    if (i.status == cudaErrorNoDevice) fail(ErrorKind::Runtime, "No CUDA GPUs are available");
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
      fail(ErrorKind::Runtime,
           "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver "
           "from http://www.nvidia.com/Download/index.aspx");
    fail(ErrorKind::Runtime, "The NVIDIA driver on your system is too old (found version ", driver,
         "). Please update your GPU driver by downloading and installing a new version from the URL: "
         "http://www.nvidia.com/Download/index.aspx");
  }
  if (i.status != cudaSuccess) cuda_fail(i.status, "cudaGetDeviceCount");
  if (index < 0) check_cuda(cudaGetDevice(&index), "cudaGetDevice");
  EMBER_CHECK(index < i.count, "CUDA error: invalid device ordinal");
  return index;
}

void* cuda_allocate(size_t nbytes, int index) {
  const int d = cuda_device_index(index);
  return allocator(d).allocate(nbytes, reinterpret_cast<StreamId>(cuda::current_stream(d)));
}

void cuda_deallocate(void* p, int index) { allocator(index).free(p); }

void cuda_set_device(int index) { check_cuda(cudaSetDevice(cuda_device_index(index)), "cudaSetDevice"); }

void cuda_synchronize(int index) {
  DeviceGuard g(cuda_device_index(index));
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  cuda::raise_device_errors();
}

CudaDeviceProperties cuda_device_properties(int index) {
  cudaDeviceProp p{};
  check_cuda(cudaGetDeviceProperties(&p, cuda_device_index(index)), "cudaGetDeviceProperties");
  return {p.name, p.major, p.minor, p.multiProcessorCount, static_cast<int64_t>(p.totalGlobalMem)};
}

bool cuda_is_initialized() { return g_initialized && init().count > 0; }

std::vector<std::pair<std::string, int64_t>> cuda_memory_stats(int index) {
  CachingAllocator& a = allocator(cuda_device_index(index));
  return memory_stats_items(a.stats(), a.max_split_size());
}

void cuda_empty_cache() {
  for (int i = 0; i < cuda_device_count(); ++i) allocator(i).empty_cache();
}

// Copies on the device's current stream. A copy to the host waits for it (the host reads the bytes
// next); one from the host waits too unless the source is pinned and the caller asked for
// non_blocking, as cudaMemcpy from pageable memory would.
namespace {
std::atomic<int> g_sync_debug{0};

void warn_or_error_on_sync() {
  const int mode = g_sync_debug.load(std::memory_order_relaxed);
  if (mode == 1) [[unlikely]]
    warn("called a synchronizing CUDA operation");
  else if (mode == 2) [[unlikely]] fail(ErrorKind::Runtime, "called a synchronizing CUDA operation");
}
}  // namespace

void cuda_set_sync_debug_mode(int mode) {
  EMBER_CHECK(mode >= 0 && mode <= 2, "invalid value of debug_mode, expected one of 0,1,2");
  g_sync_debug.store(mode, std::memory_order_relaxed);
}
int cuda_get_sync_debug_mode() { return g_sync_debug.load(std::memory_order_relaxed); }

void device_from_host(void* dst, int device, const void* src, size_t nbytes, bool non_blocking) {
  if (!non_blocking) warn_or_error_on_sync();
  DeviceGuard g(device);
  cudaStream_t s = cuda::current_stream(device);
  check_cuda(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, s), "copy to the device");
  if (non_blocking) pinned_record_use(src, device);
  else check_cuda(cudaStreamSynchronize(s), "copy to the device");
}

namespace cuda {

void upload_async(void* dst, int device, const void* host, size_t nbytes) {
  void* stage = pinned_alloc(nbytes);
  std::memcpy(stage, host, nbytes);
  try {
    device_from_host(dst, device, stage, nbytes, true);  // records the block's use: not reused before the copy
  } catch (...) {
    pinned_free(stage);
    throw;
  }
  pinned_free(stage);
}

}  // namespace cuda

void device_to_host(void* dst, const void* src, int device, size_t nbytes, bool non_blocking) {
  if (!non_blocking) warn_or_error_on_sync();
  DeviceGuard g(device);
  cudaStream_t s = cuda::current_stream(device);
  check_cuda(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, s), "copy to the host");
  if (non_blocking) {
    pinned_record_use(dst, device);
    return;
  }
  check_cuda(cudaStreamSynchronize(s), "copy to the host");
  cuda::raise_device_errors();
}

void device_to_device(void* dst, int dst_device, const void* src, int src_device, size_t nbytes) {
  DeviceGuard g(src_device);
  cudaStream_t s = cuda::current_stream(src_device);
  if (dst_device == src_device) {
    check_cuda(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, s), "device copy");
  } else {
    warn_or_error_on_sync();  // the copy below waits for the device
    // The destination's queued work (its last reads and writes of dst's block) goes first, as
    // PyTorch's peer copy orders it: the source stream waits for an event on the destination's.
    cudaEvent_t dst_ready = nullptr;
    {
      DeviceGuard on_dst(dst_device);
      check_cuda(cudaEventCreateWithFlags(&dst_ready, cudaEventDisableTiming), "copy between devices");
      check_cuda(cudaEventRecord(dst_ready, cuda::current_stream(dst_device)), "copy between devices");
    }
    const cudaError_t waited = cudaStreamWaitEvent(s, dst_ready, 0);
    cudaEventDestroy(dst_ready);  // released once the wait is done, as the runtime defines it
    check_cuda(waited, "copy between devices");
    check_cuda(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, nbytes, s), "copy between devices");
    check_cuda(cudaStreamSynchronize(s), "copy between devices");  // the destination's streams may read it next
  }
}

void cuda_record_stream(void* p, int index, int64_t stream) {
  allocator(cuda_device_index(index)).record_stream(p, stream);
}

std::pair<int64_t, int64_t> cuda_mem_get_info(int index) {
  DeviceGuard g(cuda_device_index(index));
  size_t free = 0, total = 0;
  check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  return {static_cast<int64_t>(free), static_cast<int64_t>(total)};
}

void cuda_reset_peak_memory_stats(int index) { allocator(cuda_device_index(index)).reset_peak_stats(); }

std::vector<SnapshotSegment> cuda_memory_snapshot(int index) { return allocator(cuda_device_index(index)).snapshot(); }

void cuda_reset_accumulated_memory_stats(int index) { allocator(cuda_device_index(index)).reset_accumulated_stats(); }

void cuda_set_memory_fraction(double fraction, int index) {
  allocator(cuda_device_index(index)).set_memory_fraction(fraction);
}

double cuda_get_memory_fraction(int index) { return allocator(cuda_device_index(index)).memory_fraction(); }

bool cuda_can_device_access_peer(int device, int peer_device) {
  int can = 0;
  check_cuda(cudaDeviceCanAccessPeer(&can, cuda_device_index(device), cuda_device_index(peer_device)),
             "cudaDeviceCanAccessPeer");
  return can != 0;
}

#ifndef EMBER_CUDA_ARCH_LIST
#define EMBER_CUDA_ARCH_LIST ""
#endif
std::string cuda_arch_list() { return EMBER_CUDA_ARCH_LIST; }

std::string cuda_error_string(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

std::string cuda_toolkit_version() {
#ifdef CUDART_VERSION
  const int v = CUDART_VERSION;  // the toolkit the backend was built with, as torch.version.cuda
#else
  int v = 0;  // the emulator's headers: ask its runtime (no driver needed)
  cudaRuntimeGetVersion(&v);
#endif
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

}  // namespace ember
