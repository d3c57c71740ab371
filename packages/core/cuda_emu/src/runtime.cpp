// The emulated devices: device memory, pinned host memory, streams that queue their work, events
// and errors, behind the part of cudart's API that ember calls.
//
// - Device memory is one arena per device, mapped PROT_NONE except while device work runs, so host
//   code that reads or writes device memory faults at once (as it would with a GPU).
// - Work on a stream runs only when something waits for it (a synchronisation, a copy to pageable
//   memory, an event or stream query, which reports "not ready" and then lets it run), in stream
//   order, with the legacy default stream's ordering against blocking streams. Code that reads a
//   result before waiting for it sees stale bytes, as it might on a GPU.
// - Settings (environment): EMBER_CUDA_EMU_DEVICES (2), EMBER_CUDA_EMU_MEMORY_MB (4096 per device),
//   EMBER_CUDA_EMU_EAGER=1 (run work at once), EMBER_CUDA_EMU_PROTECT=0 (leave device memory mapped).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cuda_runtime_api.h"
#include "emu_internal.h"

namespace emu {

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

namespace {

struct Settings {
  int devices = static_cast<int>(env_long("EMBER_CUDA_EMU_DEVICES", 2));
  size_t memory = static_cast<size_t>(env_long("EMBER_CUDA_EMU_MEMORY_MB", 4096)) << 20;
  bool eager = env_long("EMBER_CUDA_EMU_EAGER", 0) != 0;
  bool protect = env_long("EMBER_CUDA_EMU_PROTECT", 1) != 0;
};
const Settings& settings() {
  static const Settings s;
  return s;
}

// The emulated GPUs run one piece of work at a time, whichever host thread makes it run.
std::recursive_mutex g_mu;
using Lock = std::lock_guard<std::recursive_mutex>;

thread_local cudaError_t t_last = cudaSuccess;
thread_local std::string t_detail;
thread_local int t_device = 0;
cudaError_t g_async = cudaSuccess;  // a kernel's failure, for the next synchronising call
std::string g_async_detail;

// ---- device memory ----

constexpr size_t kAlign = 512;

struct Arena {
  char* base = nullptr;
  size_t size = 0, used = 0;
  std::map<size_t, size_t> free_blocks;  // offset -> size
  std::map<size_t, size_t> live;         // offset -> size
};

std::vector<Arena>& arenas() {
  static std::vector<Arena> a = [] {
    std::vector<Arena> r(static_cast<size_t>(std::max(settings().devices, 0)));
    for (Arena& d : r) {
      d.size = settings().memory;
      void* p = mmap(nullptr, d.size, settings().protect ? PROT_NONE : PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) {
        std::fprintf(stderr, "ember CUDA emulator: cannot reserve %zu bytes of device memory\n", d.size);
        std::abort();
      }
      d.base = static_cast<char*>(p);
      d.free_blocks[0] = d.size;
    }
    return r;
  }();
  return a;
}

// Device memory is readable and writable while device work runs, and only then.
int g_access = 0;
void set_protection(int prot) {
  if (!settings().protect) return;
  for (Arena& d : arenas()) mprotect(d.base, d.size, prot);
}
struct DeviceAccess {
  DeviceAccess() {
    if (g_access++ == 0) set_protection(PROT_READ | PROT_WRITE);
  }
  ~DeviceAccess() {
    if (--g_access == 0) set_protection(PROT_NONE);
  }
};

// The device whose arena holds p, or -1.
int device_holding(const void* p) {
  auto& a = arenas();
  for (size_t i = 0; i < a.size(); ++i) {
    const char* c = static_cast<const char*>(p);
    if (c >= a[i].base && c < a[i].base + a[i].size) return static_cast<int>(i);
  }
  return -1;
}

// Whether [p, p + n) lies inside one live allocation of device d.
bool inside_allocation(int d, const void* p, size_t n) {
  const Arena& a = arenas()[static_cast<size_t>(d)];
  const size_t off = static_cast<size_t>(static_cast<const char*>(p) - a.base);
  auto it = a.live.upper_bound(off);
  if (it == a.live.begin()) return false;
  --it;
  return off + n <= it->first + it->second;
}

std::map<const char*, size_t> g_pinned;  // pinned host allocations: start -> size

bool is_pinned(const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  auto it = g_pinned.upper_bound(c);
  if (it == g_pinned.begin()) return false;
  --it;
  return c + n <= it->first + it->second;
}

// ---- streams and events ----

struct Stream;
struct Item {
  uint64_t seq;
  std::unique_ptr<Work> work;
};
struct Stream {
  int device = 0;
  bool legacy = false, blocking = true;
  std::deque<Item> queue;
};
struct Event {
  int device = 0;
  unsigned flags = 0;
  bool recorded = false, done = true;
  Stream* stream = nullptr;
  uint64_t seq = 0, generation = 0;
  double ms = 0;
};

uint64_t g_seq = 0;
std::vector<std::unique_ptr<Stream>> g_legacy;  // one default stream per device
std::set<Stream*> g_streams;                    // every live stream, the default ones included
std::map<cudaEvent_t, std::shared_ptr<Event>> g_events;

Stream& legacy_stream(int device) {
  if (g_legacy.empty()) {
    for (int d = 0; d < settings().devices; ++d) {
      g_legacy.push_back(std::make_unique<Stream>());
      g_legacy.back()->device = d;
      g_legacy.back()->legacy = true;
      g_streams.insert(g_legacy.back().get());
    }
  }
  return *g_legacy[static_cast<size_t>(device)];
}

Stream* find_stream(cudaStream_t s) {
  if (s == nullptr) return &legacy_stream(t_device);
  auto* st = reinterpret_cast<Stream*>(s);
  return g_streams.count(st) ? st : nullptr;
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// Runs s's queued work up to seq (inclusive), with what it must wait for first.
void run_until(Stream* s, uint64_t seq) {
  const DeviceAccess access;
  while (!s->queue.empty() && s->queue.front().seq <= seq) {
    Item it = std::move(s->queue.front());
    s->queue.pop_front();
    // the legacy default stream waits for the device's blocking streams, and they for it
    for (Stream* o : g_streams) {
      if (o == s || o->device != s->device || !o->blocking || !(s->legacy || o->legacy)) continue;
      run_until(o, it.seq - 1);
    }
    it.work->run();
  }
}

void run_all(int device) {  // device -1: every device
  for (Stream* s : std::vector<Stream*>(g_streams.begin(), g_streams.end()))
    if (device < 0 || s->device == device) run_until(s, UINT64_MAX);
}

uint64_t push(Stream* s, Work* w) {
  const uint64_t seq = ++g_seq;
  s->queue.push_back(Item{seq, std::unique_ptr<Work>(w)});
  if (settings().eager) run_until(s, seq);
  return seq;
}

// The result of a call that waits for the device: a kernel's failure since, if any.
cudaError_t after_wait() {
  if (g_async == cudaSuccess) return cudaSuccess;
  const cudaError_t e = g_async;
  g_async = cudaSuccess;
  t_last = e;
  t_detail = g_async_detail;
  return e;
}

template <class F>
struct Fn final : Work {
  explicit Fn(F f_) : f(std::move(f_)) {}
  void run() override { f(); }
  F f;
};
template <class F>
Work* work(F f) {
  return new Fn<F>(std::move(f));
}

struct WaitFor final : Work {  // cudaStreamWaitEvent: the event's stream up to its record
  WaitFor(Stream* s_, uint64_t seq_) : s(s_), seq(seq_) {}
  void run() override { run_until(s, seq); }
  Stream* s;
  uint64_t seq;
};

std::shared_ptr<Event> find_event(cudaEvent_t e) {
  auto it = g_events.find(e);
  return it == g_events.end() ? nullptr : it->second;
}

cudaError_t bad_handle(const char* what) {
  return set_error(cudaErrorInvalidResourceHandle, std::string(what) + ": not a live stream or event");
}

bool valid_device(int d) { return d >= 0 && d < settings().devices; }

}  // namespace

// A diagnostic: on stderr, and appended to EMBER_CUDA_EMU_LOG where set (pytest hides a passing
// test's stderr; the nox session fails when the log is not empty).
void note(const std::string& what) {
  std::fprintf(stderr, "ember CUDA emulator: %s\n", what.c_str());
  if (const char* path = std::getenv("EMBER_CUDA_EMU_LOG"); path && *path) {
    if (std::FILE* f = std::fopen(path, "a")) {
      std::fprintf(f, "%s\n", what.c_str());
      std::fclose(f);
    }
  }
}

void trace(const char* kind, const char* what, size_t n) {
  static std::FILE* const f = [] {
    const char* path = std::getenv("EMBER_CUDA_EMU_TRACE");
    return path && *path ? std::fopen(path, "a") : nullptr;
  }();
  if (!f) return;
  std::fprintf(f, "%s %s %zu\n", kind, what, n);
  std::fflush(f);  // readers look between steps
}

cudaError_t set_error(cudaError_t e, const std::string& detail) {
  t_last = e;
  t_detail = detail;
  if (!detail.empty()) note(detail);
  return e;
}

void report_failure(const std::string& detail) {
  note("kernel failed: " + detail);
  if (g_async == cudaSuccess) {
    g_async = cudaErrorLaunchFailure;
    g_async_detail = detail;
  }
}

cudaError_t enqueue(cudaStream_t s, Work* w, const char* what) {
  const Lock lock(g_mu);
  Stream* st = find_stream(s);
  if (!st) {
    delete w;
    return bad_handle(what);
  }
  push(st, w);
  return cudaSuccess;
}

bool is_device_range(const void* p, size_t n) {
  const Lock lock(g_mu);
  const int d = device_holding(p);
  return d >= 0 && inside_allocation(d, p, n);
}

}  // namespace emu

using namespace emu;

// ---- devices ----

cudaError_t cudaGetDeviceCount(int* count) {
  trace("api", "cudaGetDeviceCount");
  *count = std::max(settings().devices, 0);
  return *count ? cudaSuccess : set_error(cudaErrorNoDevice, "");
}
cudaError_t cudaGetDevice(int* device) {
  trace("api", "cudaGetDevice");
  *device = t_device;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  trace("api", "cudaSetDevice");
  if (!valid_device(device)) return set_error(cudaErrorInvalidDevice, "cudaSetDevice(" + std::to_string(device) + ")");
  t_device = device;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  trace("api", "cudaGetDeviceProperties");
  if (!valid_device(device)) return set_error(cudaErrorInvalidDevice, "cudaGetDeviceProperties");
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof prop->name, "ember CUDA emulator");
  prop->totalGlobalMem = settings().memory;
  prop->sharedMemPerBlock = 48 << 10;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 0x7fffffff;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->major = 9;  // an H100's answers, so launch configurations match the real device's
  prop->minor = 0;
  prop->multiProcessorCount = 132;
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) {
  const Lock lock(g_mu);
  trace("sync", "cudaDeviceSynchronize");
  run_all(t_device);
  return after_wait();
}
cudaError_t cudaDriverGetVersion(int* version) {
  *version = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = 13000;
  return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer_device) {
  if (!valid_device(device) || !valid_device(peer_device))
    return set_error(cudaErrorInvalidDevice, "cudaDeviceCanAccessPeer");
  *can_access = device != peer_device;  // the emulated devices share the host: every pair can
  return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  trace("api", "cudaMemGetInfo");
  const Lock lock(g_mu);
  const Arena& a = arenas()[static_cast<size_t>(t_device)];
  *free = a.size - a.used;
  *total = a.size;
  return cudaSuccess;
}

// ---- errors ----

cudaError_t cudaGetLastError(void) {
  trace("api", "cudaGetLastError");
  const cudaError_t e = t_last != cudaSuccess ? t_last : after_wait();
  t_last = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError(void) {
  trace("api", "cudaPeekAtLastError");
  return t_last;
}
const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration:
      return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer:
      return "cudaErrorInvalidDevicePointer";
    case cudaErrorInsufficientDriver:
      return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice:
      return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle:
      return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady:
      return "cudaErrorNotReady";
    case cudaErrorLaunchFailure:
      return "cudaErrorLaunchFailure";
  }
  return "cudaErrorUnknown";
}
const char* cudaGetErrorString(cudaError_t error) {
  static thread_local std::string s;
  switch (error) {
    case cudaSuccess:
      s = "no error";
      break;
    case cudaErrorInvalidValue:
      s = "invalid argument";
      break;
    case cudaErrorMemoryAllocation:
      s = "out of memory";
      break;
    case cudaErrorInvalidConfiguration:
      s = "invalid configuration argument";
      break;
    case cudaErrorInvalidDevicePointer:
      s = "invalid device pointer";
      break;
    case cudaErrorInsufficientDriver:
      s = "CUDA driver version is insufficient for CUDA runtime version";
      break;
    case cudaErrorNoDevice:
      s = "no CUDA-capable device is detected";
      break;
    case cudaErrorInvalidDevice:
      s = "invalid device ordinal";
      break;
    case cudaErrorInvalidResourceHandle:
      s = "invalid resource handle";
      break;
    case cudaErrorNotReady:
      s = "device not ready";
      break;
    case cudaErrorLaunchFailure:
      s = "unspecified launch failure";
      break;
    default:
      s = "unknown error";
      break;
  }
  if (error != cudaSuccess && !t_detail.empty()) s += " [emulator: " + t_detail + "]";
  return s.c_str();
}

// ---- memory ----

cudaError_t cudaMalloc(void** p, size_t size) {
  const Lock lock(g_mu);
  *p = nullptr;
  if (size == 0) return cudaSuccess;
  trace("alloc", "cudaMalloc", size);
  Arena& a = arenas()[static_cast<size_t>(t_device)];
  const size_t n = (size + kAlign - 1) / kAlign * kAlign;
  for (auto it = a.free_blocks.begin(); it != a.free_blocks.end(); ++it) {
    if (it->second < n) continue;
    const size_t off = it->first, left = it->second - n;
    a.free_blocks.erase(it);
    if (left) a.free_blocks[off + n] = left;
    a.live[off] = n;
    a.used += n;
    *p = a.base + off;
    const DeviceAccess access;
    std::memset(*p, 0xff, n);  // fresh device memory holds garbage: NaN floats, -1 integers
    return cudaSuccess;
  }
  return set_error(cudaErrorMemoryAllocation, "");
}

cudaError_t cudaFree(void* p) {
  const Lock lock(g_mu);
  if (!p) return cudaSuccess;
  const int d = device_holding(p);
  Arena* a = d >= 0 ? &arenas()[static_cast<size_t>(d)] : nullptr;
  const size_t off = a ? static_cast<size_t>(static_cast<char*>(p) - a->base) : 0;
  if (!a || !a->live.count(off))
    return set_error(cudaErrorInvalidDevicePointer, "cudaFree of a pointer cudaMalloc did not give");
  trace("sync", "cudaFree", a->live[off]);
  run_all(-1);  // cudaFree waits for the device
  size_t start = off, n = a->live[off];
  a->live.erase(off);
  a->used -= n;
  // Give the block's whole pages back to the host: resident pages are what each protection change
  // walks, so freed memory kept resident slowed every later launch.
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t lo = (start + page - 1) / page * page, hi = (start + n) / page * page;
  if (hi > lo) madvise(a->base + lo, hi - lo, MADV_DONTNEED);
  auto next = a->free_blocks.find(start + n);
  if (next != a->free_blocks.end()) {
    n += next->second;
    a->free_blocks.erase(next);
  }
  auto prev = a->free_blocks.lower_bound(start);
  if (prev != a->free_blocks.begin() && (--prev)->first + prev->second == start) {
    start = prev->first;
    n += prev->second;
  }
  a->free_blocks[start] = n;
  return after_wait();
}

cudaError_t cudaHostAlloc(void** p, size_t size, unsigned) {
  const Lock lock(g_mu);
  const size_t n = std::max<size_t>((size + 4095) / 4096 * 4096, 4096);
  *p = std::aligned_alloc(4096, n);
  if (!*p) return set_error(cudaErrorMemoryAllocation, "");
  g_pinned[static_cast<const char*>(*p)] = size;
  return cudaSuccess;
}
cudaError_t cudaMallocHost(void** p, size_t size) { return cudaHostAlloc(p, size, 0); }
// Kernels run on the host here, so pinned memory is mapped into every device at its host address.
cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned) {
  const Lock lock(g_mu);
  *device = nullptr;
  if (!is_pinned(host, 1)) return set_error(cudaErrorInvalidValue, "cudaHostGetDevicePointer of unpinned memory");
  *device = host;
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* p) {
  const Lock lock(g_mu);
  if (!p) return cudaSuccess;
  auto it = g_pinned.find(static_cast<const char*>(p));
  if (it == g_pinned.end())
    return set_error(cudaErrorInvalidValue, "cudaFreeHost of memory cudaHostAlloc did not give");
  run_all(-1);
  g_pinned.erase(it);
  std::free(p);
  return after_wait();
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* p) {
  trace("api", "cudaPointerGetAttributes");
  const Lock lock(g_mu);
  *attr = cudaPointerAttributes{};
  attr->device = -2;
  const int d = device_holding(p);
  if (d >= 0) {
    attr->type = cudaMemoryTypeDevice;
    attr->device = d;
    attr->devicePointer = const_cast<void*>(p);
  } else if (is_pinned(p, 1)) {
    attr->type = cudaMemoryTypeHost;
    attr->device = t_device;
    attr->hostPointer = attr->devicePointer = const_cast<void*>(p);
  }
  return cudaSuccess;
}

// ---- copies ----

namespace {

// A copy's operands checked against its kind; an empty string when they agree.
std::string check_copy(void* dst, const void* src, size_t n, cudaMemcpyKind& kind) {
  const int dd = device_holding(dst), sd = device_holding(src);
  if (kind == cudaMemcpyDefault)
    kind = sd >= 0 ? (dd >= 0 ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                   : (dd >= 0 ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  const bool want_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  const bool want_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  if (want_src != (sd >= 0))
    return want_src ? "the copy's source is not device memory" : "the copy's source is device memory";
  if (want_dst != (dd >= 0))
    return want_dst ? "the copy's destination is not device memory" : "the copy's destination is device memory";
  if (sd >= 0 && !inside_allocation(sd, src, n)) return "the copy reads past its source's allocation";
  if (dd >= 0 && !inside_allocation(dd, dst, n)) return "the copy writes past its destination's allocation";
  return "";
}

cudaError_t copy_async(void* dst, const void* src, size_t n, cudaMemcpyKind kind, Stream* s, const char* what) {
  if (n == 0) return cudaSuccess;
  const std::string bad = check_copy(dst, src, n, kind);
  if (!bad.empty()) return set_error(cudaErrorInvalidValue, std::string(what) + ": " + bad);
  static const char* const kinds[] = {"HtoH", "HtoD", "DtoH", "DtoD"};
  trace("copy", kinds[kind], n);
  if (kind == cudaMemcpyHostToDevice && !is_pinned(src, n)) {
    // from pageable memory the bytes are taken at the call, as CUDA stages them
    auto staged = std::make_shared<std::vector<char>>(static_cast<const char*>(src), static_cast<const char*>(src) + n);
    push(s, work([dst, staged] { std::memcpy(dst, staged->data(), staged->size()); }));
    return cudaSuccess;
  }
  const uint64_t seq = push(s, work([dst, src, n] { std::memmove(dst, src, n); }));
  // to pageable memory (or between pageable buffers) the call returns once the copy is done
  if ((kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost) && !is_pinned(dst, n)) {
    trace("sync", "copy to pageable memory", n);
    run_until(s, seq);
    return after_wait();
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t s) {
  const Lock lock(g_mu);
  Stream* st = find_stream(s);
  return st ? copy_async(dst, src, n, kind, st, "cudaMemcpyAsync") : bad_handle("cudaMemcpyAsync");
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  const Lock lock(g_mu);
  Stream* s = &legacy_stream(t_device);
  const cudaError_t e = copy_async(dst, src, n, kind, s, "cudaMemcpy");
  if (e != cudaSuccess) return e;
  trace("sync", "cudaMemcpy", n);
  run_until(s, g_seq);
  return after_wait();
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t n, cudaStream_t s) {
  const Lock lock(g_mu);
  Stream* st = find_stream(s);
  if (!st) return bad_handle("cudaMemcpyPeerAsync");
  if (n && (device_holding(dst) != dst_device || device_holding(src) != src_device))
    return set_error(cudaErrorInvalidValue, "cudaMemcpyPeerAsync: a pointer is not on the device named");
  return copy_async(dst, src, n, cudaMemcpyDeviceToDevice, st, "cudaMemcpyPeerAsync");
}

cudaError_t cudaMemsetAsync(void* p, int value, size_t n, cudaStream_t s) {
  const Lock lock(g_mu);
  Stream* st = find_stream(s);
  if (!st) return bad_handle("cudaMemsetAsync");
  if (n == 0) return cudaSuccess;
  const int d = device_holding(p);
  if (d < 0 || !inside_allocation(d, p, n))
    return set_error(cudaErrorInvalidValue, "cudaMemsetAsync: the range is not inside one device allocation");
  trace("memset", "cudaMemsetAsync", n);
  push(st, work([p, value, n] { std::memset(p, value, n); }));
  return cudaSuccess;
}
cudaError_t cudaMemset(void* p, int value, size_t n) {
  const cudaError_t e = cudaMemsetAsync(p, value, n, nullptr);
  return e != cudaSuccess ? e : cudaStreamSynchronize(nullptr);
}

// ---- streams ----

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned flags, int) {
  const Lock lock(g_mu);
  legacy_stream(0);
  auto* st = new Stream;
  st->device = t_device;
  st->blocking = !(flags & cudaStreamNonBlocking);
  g_streams.insert(st);
  *s = reinterpret_cast<cudaStream_t>(st);
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  return cudaStreamCreateWithPriority(s, flags, 0);
}
cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithPriority(s, cudaStreamDefault, 0); }
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  const Lock lock(g_mu);
  Stream* st = find_stream(s);
  if (!st || st->legacy) return bad_handle("cudaStreamDestroy");
  run_until(st, UINT64_MAX);
  g_streams.erase(st);
  delete st;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  const Lock lock(g_mu);
  Stream* st = find_stream(s);
  if (!st) return bad_handle("cudaStreamSynchronize");
  trace("sync", "cudaStreamSynchronize");
  run_until(st, UINT64_MAX);
  return after_wait();
}
cudaError_t cudaStreamQuery(cudaStream_t s) {
  trace("api", "cudaStreamQuery");
  const Lock lock(g_mu);
  Stream* st = find_stream(s);
  if (!st) return bad_handle("cudaStreamQuery");
  if (st->queue.empty()) return after_wait();
  run_until(st, UINT64_MAX);  // "not ready" now; done by the next query
  return cudaErrorNotReady;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned) {
  trace("api", "cudaStreamWaitEvent");
  const Lock lock(g_mu);
  Stream* st = find_stream(s);
  auto ev = find_event(e);
  if (!st || !ev) return bad_handle("cudaStreamWaitEvent");
  if (ev->recorded && !ev->done) push(st, new WaitFor(ev->stream, ev->seq));
  return cudaSuccess;
}

// ---- events ----

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags) {
  trace("api", "cudaEventCreateWithFlags");
  const Lock lock(g_mu);
  auto ev = std::make_shared<Event>();
  ev->device = t_device;
  ev->flags = flags;
  *e = reinterpret_cast<cudaEvent_t>(ev.get());
  g_events[*e] = ev;
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* e) { return cudaEventCreateWithFlags(e, cudaEventDefault); }
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  trace("api", "cudaEventDestroy");
  const Lock lock(g_mu);
  return g_events.erase(e) ? cudaSuccess : bad_handle("cudaEventDestroy");
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  trace("api", "cudaEventRecord");
  const Lock lock(g_mu);
  Stream* st = find_stream(s);
  auto ev = find_event(e);
  if (!st || !ev) return bad_handle("cudaEventRecord");
  if (ev->device != st->device)
    return set_error(cudaErrorInvalidResourceHandle,
                     "cudaEventRecord: the event and the stream are on different devices");
  const uint64_t generation = ++ev->generation;
  ev->recorded = true;
  ev->done = false;
  ev->stream = st;
  ev->seq = push(st, work([ev, generation] {
                   ev->ms = now_ms();
                   if (ev->generation == generation) ev->done = true;
                 }));
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t e) {
  trace("api", "cudaEventQuery");
  const Lock lock(g_mu);
  auto ev = find_event(e);
  if (!ev) return bad_handle("cudaEventQuery");
  if (ev->done) return after_wait();
  run_until(ev->stream, ev->seq);  // "not ready" now; done by the next query
  return cudaErrorNotReady;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  const Lock lock(g_mu);
  auto ev = find_event(e);
  if (!ev) return bad_handle("cudaEventSynchronize");
  trace("sync", "cudaEventSynchronize");
  if (!ev->done) run_until(ev->stream, ev->seq);
  return after_wait();
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  const Lock lock(g_mu);
  auto a = find_event(start), b = find_event(end);
  if (!a || !b || !a->recorded || !b->recorded || (a->flags & cudaEventDisableTiming) ||
      (b->flags & cudaEventDisableTiming))
    return bad_handle("cudaEventElapsedTime");
  if (!a->done || !b->done) return cudaErrorNotReady;
  *ms = static_cast<float>(b->ms - a->ms);
  return cudaSuccess;
}
