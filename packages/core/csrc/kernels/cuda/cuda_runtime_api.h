// What ember.cuda asks of the CUDA runtime (kernels/cuda/cuda_device.cpp; in a build without
// EMBER_CUDA, cuda_stub.cpp, where the queries answer "no GPU" and the rest raise "Torch not
// compiled with CUDA enabled"). Device indices of -1 mean the current device.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/caching_allocator.h"

namespace ember {

bool cuda_is_compiled();
int cuda_device_count();
bool cuda_is_initialized();
int cuda_device_index(int index);  // initialises CUDA; PyTorch's errors; -1 -> the current device
void cuda_set_device(int index);
void cuda_synchronize(int index);

struct CudaDeviceProperties {
  std::string name;
  int major = 0, minor = 0, multi_processor_count = 0;
  int64_t total_memory = 0;
};
CudaDeviceProperties cuda_device_properties(int index);

std::vector<std::pair<std::string, int64_t>> cuda_memory_stats(int index);
void cuda_empty_cache();
void cuda_reset_peak_memory_stats(int index);
void cuda_reset_accumulated_memory_stats(int index);
std::vector<SnapshotSegment> cuda_memory_snapshot(int index);  // [] for a device CUDA has not allocated on
void cuda_set_memory_fraction(double fraction, int index);
double cuda_get_memory_fraction(int index);
bool cuda_can_device_access_peer(int device, int peer_device);
// The architectures the kernels were compiled for, as CMAKE_CUDA_ARCHITECTURES names them
// ("80-real 90-real 90-virtual"; "" in the emulator build).
std::string cuda_arch_list();
// The CUDA toolkit version of the build ("13.0"; "" without CUDA): torch.version.cuda.
std::string cuda_toolkit_version();
// cudaGetErrorString of a CUDA runtime result code (torch.cuda.CudaError's text).
std::string cuda_error_string(int code);

// Streams and events (ember.cuda.Stream / Event), as opaque handles (cudaStream_t / cudaEvent_t).
// Streams come from a per-device pool (32 per priority, round robin) and live for the process, as
// PyTorch's do; 0 is the default stream. Events belong to the Python object that made them.
int64_t cuda_stream_from_pool(int device, int priority);  // priority: 0 (low) or < 0 (high)
int64_t cuda_current_stream(int device);
void cuda_set_current_stream(int device, int64_t stream);
bool cuda_stream_query(int device, int64_t stream);
void cuda_stream_synchronize(int device, int64_t stream);
void cuda_stream_wait_event(int device, int64_t stream, int64_t event);
std::pair<int, int> cuda_stream_priority_range();  // (least, greatest), as cudaDeviceGetStreamPriorityRange
int64_t cuda_event_create(int device, bool enable_timing, bool blocking, bool interprocess);
void cuda_event_destroy(int device, int64_t event);
void cuda_event_record(int device, int64_t event, int64_t stream);
bool cuda_event_query(int64_t event);
void cuda_event_synchronize(int64_t event);
double cuda_event_elapsed_ms(int64_t start, int64_t end);
// Tensor.record_stream: the block at p (allocated on `device`) is also used on `stream`.
void cuda_record_stream(void* p, int device, int64_t stream);
// (free, total) bytes of the device, as cudaMemGetInfo.
std::pair<int64_t, int64_t> cuda_mem_get_info(int device);

// set_sync_debug_mode: 0 quiet, 1 a warning, 2 an error at each synchronizing copy (a blocking copy
// to or from the host, a copy between GPUs), as PyTorch's "called a synchronizing CUDA operation".
void cuda_set_sync_debug_mode(int mode);
int cuda_get_sync_debug_mode();

// NVTX ranges and marks (kernels/cuda/nvtx_ranges.cpp; ember.cuda.nvtx checks for a CUDA build first).
int cuda_nvtx_range_push(const std::string& message);
int cuda_nvtx_range_pop();
uint64_t cuda_nvtx_range_start(const std::string& message);
void cuda_nvtx_range_end(uint64_t range);
void cuda_nvtx_mark(const std::string& message);

// Where a CUDA library (by soname) lives when dlopen cannot find it by name: ember.cuda registers
// one that looks through NVIDIA's pip packages on sys.path; "" when it is not there either.
using LibraryLocator = std::string (*)(const std::string& soname);
namespace cuda {
void set_library_locator(LibraryLocator locator);
// Whether float32 cuBLAS products may use TF32 (set_float32_matmul_precision != "highest").
void set_allow_tf32(bool allow);
// Whether the float32 products of convolutions may use TF32 (ember.backends.cudnn.allow_tf32, on
// at start, as PyTorch's cuDNN convolutions).
void set_conv_allow_tf32(bool allow);
}  // namespace cuda

}  // namespace ember
