// The CUDA backend when ember is built without EMBER_CUDA: linked instead of the CUDA sources, so
// op code needs no #ifdefs. Its backend table (kernels/backend.h) has every entry, each raising
// PyTorch's error (AssertionError "Torch not compiled with CUDA enabled"), and so do the device
// allocator's entry points.
#include <string>
#include <utility>
#include <vector>

#include "kernels/backend_fill.h"
#include "kernels/cuda/cuda_runtime_api.h"
#include "kernels/device_transfer.h"

namespace ember {

bool cuda_is_compiled() { return false; }
int cuda_device_count() { return 0; }

void cuda_backend_unavailable() { fail(ErrorKind::NoCuda, "Torch not compiled with CUDA enabled"); }

int cuda_device_index(int) { cuda_backend_unavailable(); }
void* cuda_allocate(size_t, int) { cuda_backend_unavailable(); }
void cuda_deallocate(void*, int) { cuda_backend_unavailable(); }
bool cuda_is_initialized() { return false; }
void cuda_set_device(int) { cuda_backend_unavailable(); }
void cuda_synchronize(int) { cuda_backend_unavailable(); }
CudaDeviceProperties cuda_device_properties(int) { cuda_backend_unavailable(); }
std::vector<std::pair<std::string, int64_t>> cuda_memory_stats(int) { cuda_backend_unavailable(); }
void cuda_empty_cache() {}
void cuda_reset_peak_memory_stats(int) { cuda_backend_unavailable(); }
void cuda_reset_accumulated_memory_stats(int) { cuda_backend_unavailable(); }
std::vector<SnapshotSegment> cuda_memory_snapshot(int) { return {}; }
void cuda_set_memory_fraction(double, int) { cuda_backend_unavailable(); }
double cuda_get_memory_fraction(int) { cuda_backend_unavailable(); }
bool cuda_can_device_access_peer(int, int) { cuda_backend_unavailable(); }
std::string cuda_arch_list() { return ""; }
std::string cuda_toolkit_version() { return ""; }
std::string cuda_error_string(int) { return "CUDA error (ember was built without CUDA)"; }
void cuda_set_sync_debug_mode(int) { cuda_backend_unavailable(); }
int cuda_get_sync_debug_mode() { cuda_backend_unavailable(); }
int cuda_nvtx_range_push(const std::string&) { cuda_backend_unavailable(); }
int cuda_nvtx_range_pop() { cuda_backend_unavailable(); }
uint64_t cuda_nvtx_range_start(const std::string&) { cuda_backend_unavailable(); }
void cuda_nvtx_range_end(uint64_t) { cuda_backend_unavailable(); }
void cuda_nvtx_mark(const std::string&) { cuda_backend_unavailable(); }
int64_t cuda_stream_from_pool(int, int) { cuda_backend_unavailable(); }
int64_t cuda_current_stream(int) { cuda_backend_unavailable(); }
void cuda_set_current_stream(int, int64_t) { cuda_backend_unavailable(); }
bool cuda_stream_query(int, int64_t) { cuda_backend_unavailable(); }
void cuda_stream_synchronize(int, int64_t) { cuda_backend_unavailable(); }
void cuda_stream_wait_event(int, int64_t, int64_t) { cuda_backend_unavailable(); }
std::pair<int, int> cuda_stream_priority_range() { cuda_backend_unavailable(); }
int64_t cuda_event_create(int, bool, bool, bool) { cuda_backend_unavailable(); }
void cuda_event_destroy(int, int64_t) {}
void cuda_event_record(int, int64_t, int64_t) { cuda_backend_unavailable(); }
bool cuda_event_query(int64_t) { cuda_backend_unavailable(); }
void cuda_event_synchronize(int64_t) { cuda_backend_unavailable(); }
double cuda_event_elapsed_ms(int64_t, int64_t) { cuda_backend_unavailable(); }
void cuda_record_stream(void*, int, int64_t) { cuda_backend_unavailable(); }
std::pair<int64_t, int64_t> cuda_mem_get_info(int) { cuda_backend_unavailable(); }
void cuda::set_library_locator(LibraryLocator) {}
void cuda::set_allow_tf32(bool) {}  // nothing to load without the CUDA backend
void cuda::set_conv_allow_tf32(bool) {}

void device_from_host(void*, int, const void*, size_t, bool) { cuda_backend_unavailable(); }
void device_to_host(void*, const void*, int, size_t, bool) { cuda_backend_unavailable(); }
void device_to_device(void*, int, const void*, int, size_t) { cuda_backend_unavailable(); }

void* pinned_alloc(size_t) { fail(ErrorKind::Runtime, "Cannot access accelerator device when none is available."); }
void pinned_free(void*) {}
bool is_pinned(const void*) { return false; }
void pinned_record_use(const void*, int) {}
std::map<std::string, double> pinned_memory_stats() { return {}; }
void pinned_reset_peak_stats() {}
void pinned_reset_accumulated_stats() {}

const Backend& cuda_backend() {
  static const Backend table = backend_fill::raising_backend<cuda_backend_unavailable>(DeviceType::CUDA);
  return table;
}

}  // namespace ember
