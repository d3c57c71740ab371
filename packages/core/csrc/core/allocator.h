// Memory for tensor storages, by device. allocate(nbytes, device) is the one entry point the
// tensor code uses; the CPU allocator behind it caches large blocks after free: a fresh 64 MB
// buffer costs more in page faults than an add kernel over it. A device this build has no
// allocator for (CUDA without EMBER_CUDA) raises PyTorch's "not compiled with CUDA" error.
#pragma once
#include <cstddef>

#include "device.h"

namespace ember {

constexpr size_t kAlignment = 64;  // a cache line; enough for any SIMD width

// nbytes of uninitialised memory on `device`, kAlignment-aligned; raises OutOfMemoryError when
// there is none. Give it back with deallocate(p, nbytes, device), the same size and device.
void* allocate(size_t nbytes, Device device);
void deallocate(void* p, size_t nbytes, Device device);
// nbytes from src to dst, both on `device` (a GPU's bytes are copied there, never read on the host).
void copy_bytes(void* dst, const void* src, size_t nbytes, Device device);

// The CPU allocator itself (what allocate() calls for a CPU device); kernels' scratch buffers
// use it directly: they run on the CPU whatever the tensors' device says.
void* cpu_alloc(size_t nbytes);
void cpu_free(void* p, size_t nbytes);
// Drop every cached block (the CPU analogue of cuda.empty_cache).
void cpu_empty_cache();
size_t cpu_cached_bytes();

}  // namespace ember
