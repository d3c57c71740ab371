#include "caching_allocator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>

#include "error.h"

namespace ember {

void StatCounter::add(int64_t n) {
  current += n;
  allocated += n;
  if (current > peak) peak = current;
}

void StatCounter::sub(int64_t n) {
  current -= n;
  freed += n;
}

// A piece of a segment: segments are split into blocks, linked in address order so a freed
// block can merge with free neighbours.
struct CachingAllocator::Block {
  void* ptr;
  size_t size;
  size_t requested = 0;  // what the caller asked for (before rounding)
  StreamId stream;
  Pool* pool;
  bool allocated = false;
  Block* prev = nullptr;
  Block* next = nullptr;
  std::set<StreamId> stream_uses;  // other streams the block was used on (record_stream)
  int event_count = 0;             // their events still pending after free
  Block(void* p, size_t n, StreamId s, Pool* pl) : ptr(p), size(n), stream(s), pool(pl) {}
  bool is_split() const { return prev || next; }
};

namespace {
struct BlockOrder {
  template <class B>
  bool operator()(const B* a, const B* b) const {
    return std::make_tuple(a->stream, a->size, reinterpret_cast<uintptr_t>(a->ptr)) <
           std::make_tuple(b->stream, b->size, reinterpret_cast<uintptr_t>(b->ptr));
  }
};
}  // namespace

struct CachingAllocator::Pool {
  bool small;
  std::set<Block*, BlockOrder> free_blocks;
  explicit Pool(bool s) : small(s) {}
};

CachingAllocator::CachingAllocator(std::unique_ptr<DeviceMemory> device)
    : device_(std::move(device)), small_(std::make_unique<Pool>(true)), large_(std::make_unique<Pool>(false)) {}

CachingAllocator::~CachingAllocator() {
  // Live tensors may outlive the allocator at exit: give back only what is cached.
  std::lock_guard<std::mutex> g(mu_);
  device_->synchronize();
  process_events();
  release_cached_blocks();
}

size_t CachingAllocator::round_size(size_t n) {
  if (n < kMinBlockSize) return kMinBlockSize;
  EMBER_CHECK(n <= SIZE_MAX - kMinBlockSize, "CUDA out of memory. Tried to allocate ", n, " bytes.");
  return (n + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t CachingAllocator::segment_size(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  EMBER_CHECK(rounded <= SIZE_MAX - kRoundLarge, "CUDA out of memory. Tried to allocate ", rounded, " bytes.");
  return (rounded + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

int CachingAllocator::pool_index(const Pool& pool) const { return pool.small ? 1 : 2; }

void CachingAllocator::stat_add(StatCounter (&c)[3], const Pool& pool, int64_t n) {
  c[0].add(n);
  c[pool_index(pool)].add(n);
}

void CachingAllocator::stat_sub(StatCounter (&c)[3], const Pool& pool, int64_t n) {
  c[0].sub(n);
  c[pool_index(pool)].sub(n);
}

// Best fit on the same stream: the smallest free block at least `size` long.
CachingAllocator::Block* CachingAllocator::find_free_block(Pool& pool, size_t size, StreamId stream) {
  Block key(nullptr, size, stream, &pool);
  auto it = pool.free_blocks.lower_bound(&key);
  if (it == pool.free_blocks.end() || (*it)->stream != stream) return nullptr;
  Block* b = *it;
  // A huge cached block is not carved up for a much smaller large request (PyTorch's rule).
  if (!pool.small && b->size >= size + kLargeBuffer && size >= kMinLargeAlloc) return nullptr;
  // max_split_size: an oversize block serves no smaller request, and a large one only within kLargeBuffer.
  if (size < max_split_ && b->size >= max_split_) return nullptr;
  if (size >= max_split_ && b->size >= size + kLargeBuffer) return nullptr;
  pool.free_blocks.erase(it);
  return b;
}

void* CachingAllocator::raw_alloc_within_fraction(size_t seg) {
  const auto reserved = size_t(stats_.reserved_bytes[0].current);
  if (allowed_bytes_ != SIZE_MAX && (reserved > allowed_bytes_ || seg > allowed_bytes_ - reserved)) return nullptr;
  return device_->raw_alloc(seg);
}

void CachingAllocator::set_max_split_size(size_t bytes) {
  std::lock_guard<std::mutex> g(mu_);
  max_split_ = bytes;
}

void CachingAllocator::set_memory_fraction(double fraction) {
  std::lock_guard<std::mutex> g(mu_);
  fraction_ = fraction;
  allowed_bytes_ = static_cast<size_t>(fraction * static_cast<double>(device_->total_memory()));
}

double CachingAllocator::memory_fraction() {
  std::lock_guard<std::mutex> g(mu_);
  return fraction_;
}

CachingAllocator::Block* CachingAllocator::new_segment(Pool& pool, size_t size, StreamId stream, size_t request) {
  const size_t seg = segment_size(size);
  void* p = raw_alloc_within_fraction(seg);
  if (!p) {
    // Free the cache (after the streams finish with it) and try once more.
    ++stats_.num_alloc_retries;
    ++stats_.num_sync_all_streams;
    device_->synchronize();
    process_events();
    release_cached_blocks();
    p = raw_alloc_within_fraction(seg);
  }
  if (!p) {
    ++stats_.num_ooms;
    fail(ErrorKind::OutOfMemory, oom_message(request, device_->device_index(), device_->total_memory(),
                                             device_->free_memory(), size_t(stats_.allocated_bytes[0].current),
                                             size_t(stats_.reserved_bytes[0].current), allowed_bytes_));
  }
  ++stats_.num_device_alloc;
  if (seg >= max_split_) stats_.oversize_segments.add(1);
  stat_add(stats_.segment, pool, 1);
  stat_add(stats_.reserved_bytes, pool, int64_t(seg));
  return new Block(p, seg, stream, &pool);
}

void* CachingAllocator::allocate(size_t nbytes, StreamId stream) {
  std::lock_guard<std::mutex> g(mu_);
  if (nbytes == 0) return nullptr;
  process_events();
  const size_t size = round_size(nbytes);
  Pool& pool = size <= kSmallSize ? *small_ : *large_;
  Block* b = find_free_block(pool, size, stream);
  if (b) {
    if (b->is_split()) {
      stat_sub(stats_.inactive_split, pool, 1);
      stat_sub(stats_.inactive_split_bytes, pool, int64_t(b->size));
    }
  } else {
    b = new_segment(pool, size, stream, nbytes);
  }
  // Split off the rest when it is worth keeping: any 512 bytes in the small pool, more than a
  // small allocation in the large one (never an oversize request's block).
  const size_t rest = b->size - size;
  if (pool.small ? rest >= kMinBlockSize : rest > kSmallSize && size < max_split_) {
    auto* r = new Block(static_cast<char*>(b->ptr) + size, rest, stream, &pool);
    r->prev = b;
    r->next = b->next;
    if (r->next) r->next->prev = r;
    b->next = r;
    b->size = size;
    pool.free_blocks.insert(r);
    stat_add(stats_.inactive_split, pool, 1);
    stat_add(stats_.inactive_split_bytes, pool, int64_t(rest));
  }
  b->allocated = true;
  b->requested = nbytes;
  if (b->size >= max_split_) stats_.oversize_allocations.add(1);
  active_blocks_[b->ptr] = b;
  stat_add(stats_.allocation, pool, 1);
  stat_add(stats_.active, pool, 1);
  stat_add(stats_.allocated_bytes, pool, int64_t(b->size));
  stat_add(stats_.active_bytes, pool, int64_t(b->size));
  stat_add(stats_.requested_bytes, pool, int64_t(nbytes));
  return b->ptr;
}

void CachingAllocator::free(void* p) {
  if (!p) return;
  std::lock_guard<std::mutex> g(mu_);
  auto it = active_blocks_.find(p);
  EMBER_CHECK(it != active_blocks_.end(), "invalid device pointer: ", p);
  Block* b = it->second;
  active_blocks_.erase(it);
  b->allocated = false;
  Pool& pool = *b->pool;
  stat_sub(stats_.allocation, pool, 1);
  if (b->size >= max_split_) stats_.oversize_allocations.sub(1);
  stat_sub(stats_.allocated_bytes, pool, int64_t(b->size));
  stat_sub(stats_.requested_bytes, pool, int64_t(b->requested));
  if (!b->stream_uses.empty()) {
    // Still queued on other streams: reusable once their events are done.
    for (StreamId s : b->stream_uses) {
      pending_events_.emplace_back(device_->record_event(s), b);
      ++b->event_count;
    }
    b->stream_uses.clear();
    return;
  }
  free_block(b);
}

void CachingAllocator::record_stream(void* p, StreamId stream) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = active_blocks_.find(p);
  EMBER_CHECK(it != active_blocks_.end(), "record_stream: invalid device pointer: ", p);
  if (stream != it->second->stream) it->second->stream_uses.insert(stream);
}

void CachingAllocator::merge(Block* dst, Block* src) {
  // src (free, adjacent to dst) folds into dst
  if (src == dst->prev) {
    dst->ptr = src->ptr;
    dst->prev = src->prev;
    if (dst->prev) dst->prev->next = dst;
  } else {
    dst->next = src->next;
    if (dst->next) dst->next->prev = dst;
  }
  dst->size += src->size;
  dst->pool->free_blocks.erase(src);
  delete src;
}

void CachingAllocator::free_block(Block* b) {
  Pool& pool = *b->pool;
  stat_sub(stats_.active, pool, 1);
  stat_sub(stats_.active_bytes, pool, int64_t(b->size));
  // Neighbours that are free and not waiting on events merge into b; they were inactive splits.
  for (Block* n : {b->prev, b->next}) {
    if (n && !n->allocated && n->event_count == 0) {
      stat_sub(stats_.inactive_split, pool, 1);
      stat_sub(stats_.inactive_split_bytes, pool, int64_t(n->size));
      merge(b, n);
    }
  }
  if (b->is_split()) {
    stat_add(stats_.inactive_split, pool, 1);
    stat_add(stats_.inactive_split_bytes, pool, int64_t(b->size));
  }
  pool.free_blocks.insert(b);
}

void CachingAllocator::process_events() {
  std::vector<std::pair<int64_t, Block*>> still;
  for (auto& [ev, b] : pending_events_) {
    if (!device_->event_done(ev)) {
      still.emplace_back(ev, b);
      continue;
    }
    if (--b->event_count == 0) free_block(b);
  }
  pending_events_.swap(still);
}

void CachingAllocator::release_cached_blocks() {
  for (Pool* pool : {small_.get(), large_.get()}) {
    for (auto it = pool->free_blocks.begin(); it != pool->free_blocks.end();) {
      Block* b = *it;
      if (b->is_split()) {
        ++it;
        continue;
      }
      device_->raw_free(b->ptr);
      ++stats_.num_device_free;
      if (b->size >= max_split_) stats_.oversize_segments.sub(1);
      stat_sub(stats_.segment, *pool, 1);
      stat_sub(stats_.reserved_bytes, *pool, int64_t(b->size));
      it = pool->free_blocks.erase(it);
      delete b;
    }
  }
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> g(mu_);
  process_events();
  release_cached_blocks();
}

AllocatorStats CachingAllocator::stats() {
  std::lock_guard<std::mutex> g(mu_);
  return stats_;
}

std::vector<SnapshotSegment> CachingAllocator::snapshot() {
  std::lock_guard<std::mutex> g(mu_);
  std::set<Block*> heads;  // every block is allocated, awaiting other streams' events, or free in a pool
  auto add = [&](Block* b) {
    while (b->prev) b = b->prev;
    heads.insert(b);
  };
  for (const auto& [p, b] : active_blocks_) add(b);
  for (const auto& [ev, b] : pending_events_) add(b);
  for (Pool* pool : {small_.get(), large_.get()})
    for (Block* b : pool->free_blocks) add(b);
  std::vector<SnapshotSegment> out;
  for (Block* head : heads) {
    SnapshotSegment seg{reinterpret_cast<uintptr_t>(head->ptr), 0, 0, 0, 0, head->stream, head->pool->small, {}};
    for (Block* b = head; b; b = b->next) {
      const char* state = b->allocated ? "active_allocated" : b->event_count > 0 ? "active_awaiting_free" : "inactive";
      seg.blocks.push_back({reinterpret_cast<uintptr_t>(b->ptr), b->size, b->allocated ? b->requested : 0, state});
      seg.total_size += b->size;
      if (b->allocated) seg.allocated_size += b->size, seg.requested_size += b->requested;
      if (b->allocated || b->event_count > 0) seg.active_size += b->size;
    }
    out.push_back(std::move(seg));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
  return out;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> g(mu_);
  for (StatCounter* c :
       {stats_.allocation, stats_.segment, stats_.active, stats_.inactive_split, stats_.allocated_bytes,
        stats_.reserved_bytes, stats_.active_bytes, stats_.inactive_split_bytes, stats_.requested_bytes})
    for (int i = 0; i < 3; ++i) c[i].reset_peak();
  stats_.oversize_allocations.reset_peak();
  stats_.oversize_segments.reset_peak();
}

void CachingAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> g(mu_);
  for (StatCounter* c :
       {stats_.allocation, stats_.segment, stats_.active, stats_.inactive_split, stats_.allocated_bytes,
        stats_.reserved_bytes, stats_.active_bytes, stats_.inactive_split_bytes, stats_.requested_bytes})
    for (int i = 0; i < 3; ++i) c[i].reset_accumulated();
  stats_.oversize_allocations.reset_accumulated();
  stats_.oversize_segments.reset_accumulated();
  stats_.num_alloc_retries = stats_.num_ooms = stats_.num_device_alloc = stats_.num_device_free = 0;
  stats_.num_sync_all_streams = 0;
}

size_t CachingAllocator::allocated_size(void* p) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = active_blocks_.find(p);
  EMBER_CHECK(it != active_blocks_.end(), "invalid device pointer: ", p);
  return it->second->size;
}

std::vector<std::pair<std::string, int64_t>> memory_stats_items(const AllocatorStats& s, size_t max_split) {
  std::vector<std::pair<std::string, int64_t>> out;
  const std::pair<const char*, const StatCounter*> stats[] = {{"allocation", s.allocation},
                                                              {"segment", s.segment},
                                                              {"active", s.active},
                                                              {"inactive_split", s.inactive_split},
                                                              {"allocated_bytes", s.allocated_bytes},
                                                              {"reserved_bytes", s.reserved_bytes},
                                                              {"active_bytes", s.active_bytes},
                                                              {"inactive_split_bytes", s.inactive_split_bytes},
                                                              {"requested_bytes", s.requested_bytes}};
  const char* pools[] = {"all", "small_pool", "large_pool"};
  for (const auto& [name, c] : stats)
    for (int i = 0; i < 3; ++i) {
      const std::string k = std::string(name) + "." + pools[i] + ".";
      out.emplace_back(k + "current", c[i].current);
      out.emplace_back(k + "peak", c[i].peak);
      out.emplace_back(k + "allocated", c[i].allocated);
      out.emplace_back(k + "freed", c[i].freed);
    }
  out.emplace_back("num_alloc_retries", s.num_alloc_retries);
  out.emplace_back("num_ooms", s.num_ooms);
  out.emplace_back("num_device_alloc", s.num_device_alloc);
  out.emplace_back("num_device_free", s.num_device_free);
  out.emplace_back("num_sync_all_streams", s.num_sync_all_streams);
  out.emplace_back("num_oom_rejections", 0);
  out.emplace_back("max_split_size", max_split == SIZE_MAX ? -1 : static_cast<int64_t>(max_split));
  const std::pair<const char*, const StatCounter*> oversize[] = {{"oversize_allocations.", &s.oversize_allocations},
                                                                 {"oversize_segments.", &s.oversize_segments}};
  for (const auto& [k, c] : oversize) {
    out.emplace_back(std::string(k) + "current", c->current);
    out.emplace_back(std::string(k) + "peak", c->peak);
    out.emplace_back(std::string(k) + "allocated", c->allocated);
    out.emplace_back(std::string(k) + "freed", c->freed);
  }
  return out;
}

namespace {
// PyTorch's format_size: bytes, then KiB / MiB / GiB with two decimals.
std::string format_size(size_t n) {
  char buf[64];
  if (n < 1024) std::snprintf(buf, sizeof buf, "%zu bytes", n);
  else if (n < (size_t(1) << 20)) std::snprintf(buf, sizeof buf, "%.2f KiB", double(n) / 1024.0);
  else if (n < (size_t(1) << 30)) std::snprintf(buf, sizeof buf, "%.2f MiB", double(n) / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.2f GiB", double(n) / 1073741824.0);
  return buf;
}
}  // namespace

size_t max_split_size_from_config(const char* conf) {
  size_t max_split = SIZE_MAX;
  if (!conf) return max_split;
  const std::string text(conf);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    EMBER_CHECK(colon != std::string::npos, "Error parsing backend config string: ", item);
    const std::string key = item.substr(0, colon), value = item.substr(colon + 1);
    if (key == "max_split_size_mb") {
      char* stop = nullptr;
      const long long mb = std::strtoll(value.c_str(), &stop, 10);
      EMBER_CHECK(stop && *stop == '\0' && !value.empty(), "Error parsing backend config string: ", item);
      const size_t min_mb = CachingAllocator::kLargeBuffer >> 20;
      EMBER_CHECK(mb > static_cast<long long>(min_mb),
                  "CachingAllocator option max_split_size_mb too small, must be > ", min_mb);
      max_split = static_cast<size_t>(mb) << 20;
    } else if (key == "expandable_segments") {
      EMBER_CHECK(value == "True" || value == "False", "Expected a single True/False argument for expandable_segments");
      if (value == "True") warn("expandable_segments not supported on this platform");
    } else {
      // the other settings PyTorch reads tune its allocator's heuristics; ember's has none of them
      static const char* const kKnown[] = {"garbage_collection_threshold", "roundup_power2_divisions",
                                           "release_lock_on_cudamalloc",   "pinned_use_cuda_host_register",
                                           "pinned_num_register_threads",  "backend",
                                           "max_non_split_rounding_mb"};
      bool known = false;
      for (const char* k : kKnown) known = known || key == k;
      EMBER_CHECK(known, "Unrecognized key '", key, "' in CUDA caching allocator config.");
    }
  }
  return max_split;
}

std::string oom_message(size_t request, int device_index, size_t total, size_t free, size_t allocated, size_t reserved,
                        size_t allowed) {
  const std::string allowed_info = allowed == SIZE_MAX ? "" : format_size(allowed) + " allowed; ";
  return "CUDA out of memory. Tried to allocate " + format_size(request) + ". GPU " + std::to_string(device_index) +
         " has a total capacity of " + format_size(total) + " of which " + format_size(free) + " is free. " +
         allowed_info + "Of the allocated memory " + format_size(allocated) + " is allocated by PyTorch, and " +
         format_size(reserved - allocated) +
         " is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
         "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
         "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";
}

}  // namespace ember
