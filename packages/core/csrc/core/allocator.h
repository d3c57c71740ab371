// CPU memory for tensor storages. Large blocks are cached after free:
// a fresh 64 MB buffer costs more in page faults than an add kernel over it.
#pragma once
#include <cstddef>

namespace ember {

constexpr size_t kAlignment = 64;  // a cache line; enough for any SIMD width

void* cpu_alloc(size_t nbytes);
void cpu_free(void* p, size_t nbytes);
// Drop every cached block (the CPU analogue of cuda.empty_cache).
void cpu_empty_cache();
size_t cpu_cached_bytes();

}  // namespace ember
