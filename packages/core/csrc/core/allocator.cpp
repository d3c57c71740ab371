#include "allocator.h"
#include "profiler.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "error.h"

namespace ember {

namespace {

// Blocks at or above this size are rounded up and cached on free. Below 1 MB glibc's malloc
// hands back trimmed heap or fresh mmap pages often enough that page faults took ~6% of an MLP
// training step (128 x 512 activations are 256 KB).
constexpr size_t kCacheMin = size_t(64) << 10;
constexpr size_t kHugeMin = size_t(1) << 20;  // from here on: huge-page aligned and rounded
// Huge pages are asked for up to this size only: with the kernel's default defrag policy their
// first touch waits for compaction (here 3.7 s for 2 GiB, against 1.4 s in 4 KiB pages), which a
// block that large, seldom reused, never earns back.
constexpr size_t kHugeMax = size_t(256) << 20;
constexpr size_t kRound = size_t(2) << 20;  // huge-page granularity
constexpr size_t kSmallRound = size_t(64) << 10;
// Blocks up to this size come from malloc's per-thread cache (no lock, no search), one alignment
// larger and aligned by hand; posix_memalign splits and frees the slack of each small block,
// ~10% of a small op's time. (The sanitizer build keeps exact blocks, so overruns are caught.)
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kSmallMax = 0;
#else
constexpr size_t kSmallMax = 896;  // malloc(896 + 64) stays within glibc's tcache sizes
#endif
// The cache never holds more than this much unused memory.
size_t cache_limit() {
  static size_t limit = [] {
    const char* env = std::getenv("EMBER_CPU_CACHE_MB");
    return env ? size_t(std::strtoull(env, nullptr, 10)) << 20 : size_t(2048) << 20;
  }();
  return limit;
}

struct Cache {
  std::mutex mu;
  std::unordered_map<size_t, std::vector<void*>> free_blocks;
  size_t cached = 0;
};
Cache& cache() {
  static Cache* c = new Cache();  // leaked on purpose: frees may run during exit
  return *c;
}

[[noreturn]] void out_of_memory(size_t n) {
  fail(ErrorKind::OutOfMemory, "DefaultCPUAllocator: can't allocate memory: you tried to allocate ", n, " bytes.");
}

size_t rounded(size_t n) {
  const size_t r = n >= kHugeMin ? kRound : kSmallRound;
  if (n > (SIZE_MAX >> 1)) out_of_memory(n);  // no machine has it; rounding up would wrap
  return (n + r - 1) / r * r;
}

void* try_raw_alloc(size_t n) {
  void* p = nullptr;
  if (posix_memalign(&p, n >= kHugeMin ? kRound : kAlignment, n ? n : 1) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
  if (n >= kHugeMin && n <= kHugeMax) madvise(p, n, MADV_HUGEPAGE);
#endif
  return p;
}

void* small_alloc(size_t n) {
  void* raw = std::malloc(n + kAlignment);
  if (!raw) out_of_memory(n);
  // malloc's 16-byte alignment leaves at most 56 bytes before the aligned address, and room
  // below it for the pointer free needs
  const uintptr_t at = (reinterpret_cast<uintptr_t>(raw) + sizeof(void*) + kAlignment - 1) & ~uintptr_t(kAlignment - 1);
  reinterpret_cast<void**>(at)[-1] = raw;
  return reinterpret_cast<void*>(at);
}
void small_free(void* p) { std::free(static_cast<void**>(p)[-1]); }

}  // namespace

// The cached blocks are the first memory to give back: an allocation that fails while they
// hold address space or memory (a limit, an overcommit policy) is retried without them.
static void* raw_alloc(size_t n) {
  void* p = try_raw_alloc(n);
  if (!p && cpu_cached_bytes() > 0) {
    cpu_empty_cache();
    p = try_raw_alloc(n);
  }
  if (!p) out_of_memory(n);
  return p;
}

namespace {
void* cpu_alloc_impl(size_t nbytes) {
  if (nbytes <= kSmallMax) return small_alloc(nbytes);
  if (nbytes < kCacheMin) return raw_alloc(nbytes);
  size_t n = rounded(nbytes);
  {
    Cache& c = cache();
    std::lock_guard<std::mutex> g(c.mu);
    auto it = c.free_blocks.find(n);
    if (it != c.free_blocks.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      c.cached -= n;
      return p;
    }
  }
  return raw_alloc(n);
}
}  // namespace

void* cpu_alloc(size_t nbytes) {
  void* p = cpu_alloc_impl(nbytes);
  // Recorded after the block is known so the profiler can pair it with its free.
  if (profiler::active()) profiler::record_memory(static_cast<int64_t>(nbytes), p);
  return p;
}

void cpu_free(void* p, size_t nbytes) {
  if (!p) return;
  if (profiler::active()) profiler::record_memory(-static_cast<int64_t>(nbytes), p);
  if (nbytes <= kSmallMax) return small_free(p);
  if (nbytes >= kCacheMin) {
    size_t n = rounded(nbytes);
    Cache& c = cache();
    std::lock_guard<std::mutex> g(c.mu);
    if (c.cached + n <= cache_limit()) {
      c.free_blocks[n].push_back(p);
      c.cached += n;
      return;
    }
  }
  std::free(p);
}

void cpu_empty_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  for (auto& kv : c.free_blocks)
    for (void* p : kv.second) std::free(p);
  c.free_blocks.clear();
  c.cached = 0;
}

size_t cpu_cached_bytes() {
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  return c.cached;
}

// The device allocator lives with the CUDA backend (kernels/cuda: the caching allocator over
// cudaMalloc); a build without EMBER_CUDA links its stub, which raises "not compiled with CUDA".
void* cuda_allocate(size_t nbytes, int index);
void cuda_deallocate(void* p, int index);
void device_to_device(void* dst, int dst_device, const void* src, int src_device, size_t nbytes);

void* allocate(size_t nbytes, Device device) {
  if (device.type == DeviceType::CPU) return cpu_alloc(nbytes);
  return cuda_allocate(nbytes, device.index);
}

void deallocate(void* p, size_t nbytes, Device device) {
  if (device.type == DeviceType::CPU) return cpu_free(p, nbytes);
  cuda_deallocate(p, device.index);
}

void copy_bytes(void* dst, const void* src, size_t nbytes, Device device) {
  if (nbytes == 0) return;
  if (device.type == DeviceType::CPU) std::memcpy(dst, src, nbytes);
  else device_to_device(dst, device.index, src, device.index, nbytes);
}

}  // namespace ember
