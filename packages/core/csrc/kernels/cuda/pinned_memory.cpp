// Pinned (page-locked) host memory, cached as PyTorch's CachingHostAllocator does: blocks rounded
// up to a power of two, kept after free for the next request of that size, and held back while a
// non_blocking copy queued on a stream may still read or write them (an event per such use).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/cuda/stream.h"
#include "kernels/device_transfer.h"

namespace ember {

namespace {

struct HostBlock {
  size_t size = 0;
  bool in_use = false;
  bool active = false;               // handed out and not yet reusable (host_memory_stats' "active")
  std::vector<cudaEvent_t> pending;  // uses on streams not yet known to be done
};

// One statistic as torch.cuda.host_memory_stats reports it.
struct Stat {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;
  void add(int64_t n) {
    current += n;
    (n > 0 ? allocated : freed) += n > 0 ? n : -n;
    peak = std::max(peak, current);
  }
};

// Microseconds spent in the driver's allocation calls.
struct Timing {
  double total = 0, max = 0, min = 0;
  int64_t count = 0;
  void add(double us) {
    min = count == 0 ? us : std::min(min, us);
    max = std::max(max, us);
    total += us;
    ++count;
  }
};

struct HostCache {
  std::mutex mu;
  std::map<char*, HostBlock> blocks;          // every block, by its start
  std::multimap<size_t, char*> free_by_size;  // the free ones whose uses are all done
  Stat allocations, allocated_bytes, active_requests, active_bytes;
  int64_t num_host_alloc = 0;
  Timing alloc_time;
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

void set_active(HostCache& c, HostBlock& b, bool active) {
  if (b.active == active) return;
  b.active = active;
  const int64_t sign = active ? 1 : -1;
  c.active_requests.add(sign);
  c.active_bytes.add(sign * static_cast<int64_t>(b.size));
}

// A block whose uses are all done is reusable (called with the lock held).
void make_reusable(HostCache& c, char* p, HostBlock& b) {
  c.free_by_size.emplace(b.size, p);
  set_active(c, b, false);
}

// Blocks freed while in flight become free once their uses are done (called with the lock held).
void collect(HostCache& c) {
  for (auto& [p, b] : c.blocks) {
    if (b.in_use || b.pending.empty()) continue;
    if (uses_done(b)) make_reusable(c, p, b);
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
    HostBlock& b = c.blocks[p];
    b.in_use = true;
    set_active(c, b, true);
    return p;
  }
  void* p = nullptr;
  const auto start = std::chrono::steady_clock::now();
  const cudaError_t e = cudaHostAlloc(&p, size, cudaHostAllocDefault);
  c.alloc_time.add(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  if (e != cudaSuccess) {
    cudaGetLastError();
    fail(ErrorKind::OutOfMemory, "CUDA error: ", cudaGetErrorString(e), " (pinned host allocation of ", size,
         " bytes)");
  }
  HostBlock& b = c.blocks[static_cast<char*>(p)];
  b.size = size;
  b.in_use = true;
  ++c.num_host_alloc;
  c.allocations.add(1);
  c.allocated_bytes.add(static_cast<int64_t>(size));
  set_active(c, b, true);
  return p;
}

void pinned_free(void* p) {
  HostCache& c = cache();
  const std::lock_guard<std::mutex> g(c.mu);
  auto* e = find(c, p);
  if (!e) return;
  e->second.in_use = false;
  if (uses_done(e->second)) make_reusable(c, e->first, e->second);
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

std::map<std::string, double> pinned_memory_stats() {
  HostCache& c = cache();
  const std::lock_guard<std::mutex> g(c.mu);
  collect(c);
  std::map<std::string, double> out;
  const auto put = [&](const std::string& name, const Stat& s) {
    out[name + ".current"] = static_cast<double>(s.current);
    out[name + ".peak"] = static_cast<double>(s.peak);
    out[name + ".allocated"] = static_cast<double>(s.allocated);
    out[name + ".freed"] = static_cast<double>(s.freed);
  };
  const auto put_time = [&](const std::string& name, const Timing& t) {
    out[name + ".total"] = t.total;
    out[name + ".max"] = t.max;
    out[name + ".min"] = t.min;
    out[name + ".count"] = static_cast<double>(t.count);
    out[name + ".avg"] = t.count ? t.total / static_cast<double>(t.count) : 0.0;
  };
  put("allocations", c.allocations);
  put("allocated_bytes", c.allocated_bytes);
  put("active_requests", c.active_requests);
  put("active_bytes", c.active_bytes);
  out["num_host_alloc"] = static_cast<double>(c.num_host_alloc);
  out["num_host_free"] = 0;  // pinned blocks stay cached for the process
  put_time("host_alloc_time", c.alloc_time);
  put_time("host_free_time", Timing{});
  return out;
}

void pinned_reset_peak_stats() {
  HostCache& c = cache();
  const std::lock_guard<std::mutex> g(c.mu);
  for (Stat* s : {&c.allocations, &c.allocated_bytes, &c.active_requests, &c.active_bytes}) s->peak = s->current;
}

void pinned_reset_accumulated_stats() {
  HostCache& c = cache();
  const std::lock_guard<std::mutex> g(c.mu);
  for (Stat* s : {&c.allocations, &c.allocated_bytes, &c.active_requests, &c.active_bytes}) s->allocated = s->freed = 0;
  c.num_host_alloc = 0;
  c.alloc_time = Timing{};
}

}  // namespace ember
