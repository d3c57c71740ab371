// Bytes between the host and a device, and between devices: what a copy across devices moves once
// both sides are dense and of one dtype (ops/core/copy.cpp). Defined by the CUDA backend
// (kernels/cuda/cuda_device.cpp) or its stub, which raises "not compiled with CUDA".
#pragma once
#include <cstddef>
#include <map>
#include <string>

namespace ember {

// non_blocking: queue the copy on the device's current stream and return (only meaningful, and only
// asked for, when the host side is pinned memory).
void device_from_host(void* dst, int device, const void* src, size_t nbytes, bool non_blocking = false);
void device_to_host(void* dst, const void* src, int device, size_t nbytes, bool non_blocking = false);
void device_to_device(void* dst, int dst_device, const void* src, int src_device, size_t nbytes);

// Pinned host memory (kernels/cuda/pinned_memory.cpp): a cached page-locked block of at least
// nbytes (OutOfMemoryError when the driver refuses), given back with pinned_free; is_pinned: whether
// p lies in such a block; pinned_record_use: a non_blocking copy queued on the device's current
// stream uses the block at p, so it is not handed out again before that copy is done. Without
// the CUDA backend, pinned_alloc raises PyTorch's "no accelerator" error and nothing is pinned.
void* pinned_alloc(size_t nbytes);
void pinned_free(void* p);
bool is_pinned(const void* p);
void pinned_record_use(const void* p, int device);
// The pinned allocator's statistics under torch.cuda.host_memory_stats's flat names
// ("allocated_bytes.current", "host_alloc_time.avg", ...); empty without the CUDA backend.
std::map<std::string, double> pinned_memory_stats();
void pinned_reset_peak_stats();
void pinned_reset_accumulated_stats();

}  // namespace ember
