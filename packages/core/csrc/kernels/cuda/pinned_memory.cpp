// Pinned (page-locked) host memory, cached as PyTorch's CachingHostAllocator does: blocks rounded
// up to a power of two, kept after free for the next request of that size, and held back while a
// non_blocking copy queued on a stream may still read or write them (an event per such use).
#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "kernels/cuda/stream.h"
#include "kernels/device_transfer.h"

namespace ember {

namespace {

struct HostBlock {
  size_t size = 0;
  bool in_use = false;
  std::vector<cudaEvent_t> pending;  // uses on streams not yet known to be done
};

struct HostCache {
  std::mutex mu;
  std::map<char*, HostBlock> blocks;          // every block, by its start
  std::multimap<size_t, char*> free_by_size;  // the free ones whose uses are all done
};

HostCache& cache() {
  static auto* c = new HostCache();  // leaked: pinned blocks live for the process
  return *c;
}

size_t round_up(size_t n) {
  size_t r = 512;
  while (r < n) r <<= 1;
  return r;
}

// Drops the events of b that have completed; true when none is left.
bool uses_done(HostBlock& b) {
  auto& ev = b.pending;
  for (size_t i = 0; i < ev.size();) {
    const cudaError_t e = cudaEventQuery(ev[i]);
    if (e == cudaErrorNotReady) {
      cudaGetLastError();
      ++i;
      continue;
    }
    cudaEventDestroy(ev[i]);
    ev[i] = ev.back();
    ev.pop_back();
  }
  return ev.empty();
}

// Blocks freed while in flight become free once their uses are done (called with the lock held).
void collect(HostCache& c) {
  for (auto& [p, b] : c.blocks) {
    if (b.in_use || b.pending.empty()) continue;
    if (uses_done(b)) c.free_by_size.emplace(b.size, p);
  }
}

// The block that holds p (an interior pointer: a tensor's offset into its storage), or null.
std::pair<char* const, HostBlock>* find(HostCache& c, const void* p) {
  auto it = c.blocks.upper_bound(static_cast<char*>(const_cast<void*>(p)));
  if (it == c.blocks.begin()) return nullptr;
  --it;
  return static_cast<const char*>(p) < it->first + it->second.size ? &*it : nullptr;
}

}  // namespace

void* pinned_alloc(size_t nbytes) {
  HostCache& c = cache();
  const size_t size = round_up(nbytes);
  const std::lock_guard<std::mutex> g(c.mu);
  collect(c);
  auto it = c.free_by_size.find(size);
  if (it != c.free_by_size.end()) {
    char* p = it->second;
    c.free_by_size.erase(it);
    c.blocks[p].in_use = true;
    return p;
  }
  void* p = nullptr;
  const cudaError_t e = cudaHostAlloc(&p, size, cudaHostAllocDefault);
  if (e != cudaSuccess) {
    cudaGetLastError();
    fail(ErrorKind::OutOfMemory, "CUDA error: ", cudaGetErrorString(e), " (pinned host allocation of ", size,
         " bytes)");
  }
  HostBlock& b = c.blocks[static_cast<char*>(p)];
  b.size = size;
  b.in_use = true;
  return p;
}

void pinned_free(void* p) {
  HostCache& c = cache();
  const std::lock_guard<std::mutex> g(c.mu);
  auto* e = find(c, p);
  if (!e) return;
  e->second.in_use = false;
  if (uses_done(e->second)) c.free_by_size.emplace(e->second.size, e->first);
}

bool is_pinned(const void* p) {
  HostCache& c = cache();
  const std::lock_guard<std::mutex> g(c.mu);
  return find(c, p) != nullptr;
}

void pinned_record_use(const void* p, int device) {
  HostCache& c = cache();
  const std::lock_guard<std::mutex> g(c.mu);
  auto* e = find(c, p);
  if (!e) return;
  cudaEvent_t ev = nullptr;
  if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess ||
      cudaEventRecord(ev, cuda::current_stream(device)) != cudaSuccess) {
    cudaGetLastError();
    if (ev) cudaEventDestroy(ev);
    cudaStreamSynchronize(cuda::current_stream(device));  // cannot track the use: wait for it instead
    return;
  }
  e->second.pending.push_back(ev);
}

}  // namespace ember
