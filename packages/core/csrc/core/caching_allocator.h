// The caching allocator for device memory, as PyTorch's CUDA caching allocator works: requests
// rounded to 512 bytes; a small pool (requests up to 1 MiB, carved from 2 MiB segments) and a large
// pool (20 MiB segments for requests below 10 MiB, the request rounded to 2 MiB above); best-fit
// reuse of a free block on the same stream, split when the rest is worth keeping, merged with its
// free neighbours when freed; a block used on other streams (record_stream) waits for their events
// before reuse; a failed device allocation frees the cache and retries once, then raises
// OutOfMemoryError. The device itself is behind DeviceMemory, so the logic runs (and is tested)
// on host memory where no GPU exists.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ember {

using StreamId = int64_t;

// What the allocator needs from a device: raw segments, and events to know when a stream is done.
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  virtual void* raw_alloc(size_t nbytes) = 0;  // nullptr when the device has no room
  virtual void raw_free(void* p) = 0;
  virtual int64_t record_event(StreamId stream) = 0;  // a marker after the stream's queued work
  virtual bool event_done(int64_t event) = 0;
  virtual void synchronize() = 0;  // every stream idle (so every event done)
  virtual size_t total_memory() const = 0;
  virtual size_t free_memory() const = 0;  // what the device could still give
  virtual int device_index() const = 0;
};

// One counter as PyTorch reports it: current, peak, and the running totals in and out.
struct StatCounter {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;
  void add(int64_t n);
  void sub(int64_t n);
  void reset_peak() { peak = current; }
  void reset_accumulated() { allocated = freed = 0; }
};

struct AllocatorStats {
  // index 0: all, 1: small pool, 2: large pool (PyTorch's "all" / "small_pool" / "large_pool")
  StatCounter allocation[3], segment[3], active[3], inactive_split[3];
  StatCounter allocated_bytes[3], reserved_bytes[3], active_bytes[3], inactive_split_bytes[3], requested_bytes[3];
  StatCounter oversize_allocations, oversize_segments;  // blocks / segments of max_split_size or more
  int64_t num_alloc_retries = 0, num_ooms = 0, num_device_alloc = 0, num_device_free = 0, num_sync_all_streams = 0;
};

// memory_snapshot's view of the allocator: each segment (one device allocation) and its blocks in
// address order, as PyTorch's snapshot describes them.
struct SnapshotBlock {
  uintptr_t address;
  size_t size, requested;
  const char* state;  // "active_allocated", "active_awaiting_free" (other streams still use it), "inactive"
};
struct SnapshotSegment {
  uintptr_t address;
  size_t total_size = 0, allocated_size = 0, active_size = 0, requested_size = 0;
  StreamId stream;
  bool small;
  std::vector<SnapshotBlock> blocks;
};

class CachingAllocator {
 public:
  static constexpr size_t kMinBlockSize = 512;
  static constexpr size_t kSmallSize = size_t(1) << 20;
  static constexpr size_t kSmallBuffer = size_t(2) << 20;
  static constexpr size_t kLargeBuffer = size_t(20) << 20;
  static constexpr size_t kMinLargeAlloc = size_t(10) << 20;
  static constexpr size_t kRoundLarge = size_t(2) << 20;

  explicit CachingAllocator(std::unique_ptr<DeviceMemory> device);
  ~CachingAllocator();

  void* allocate(size_t nbytes, StreamId stream);
  void free(void* p);
  // p (allocated on its own stream) is also used on `stream`: not reused before that work ends
  void record_stream(void* p, StreamId stream);
  void empty_cache();  // give every whole free segment back to the device
  AllocatorStats stats();
  std::vector<SnapshotSegment> snapshot();
  size_t max_split_size() const { return max_split_; }
  void reset_peak_stats();
  void reset_accumulated_stats();
  // set_per_process_memory_fraction: segments beyond fraction x the device's memory are refused
  // (the cache freed and retried first, then OutOfMemoryError), as PyTorch's.
  void set_memory_fraction(double fraction);
  double memory_fraction();
  // PYTORCH_CUDA_ALLOC_CONF's max_split_size_mb: cached blocks of this size or more are never split
  // and serve only requests within kLargeBuffer of their size (less fragmentation), as PyTorch's.
  void set_max_split_size(size_t bytes);
  size_t allocated_size(void* p);  // the block's (rounded) size
  DeviceMemory& device() { return *device_; }

  static size_t round_size(size_t n);
  static size_t segment_size(size_t rounded);

 private:
  struct Block;
  struct Pool;
  Block* find_free_block(Pool& pool, size_t size, StreamId stream);
  Block* new_segment(Pool& pool, size_t size, StreamId stream, size_t request);
  void release_cached_blocks();
  void process_events();
  void free_block(Block* b);
  void merge(Block* dst, Block* src);
  int pool_index(const Pool& pool) const;
  void stat_add(StatCounter (&c)[3], const Pool& pool, int64_t n);
  void stat_sub(StatCounter (&c)[3], const Pool& pool, int64_t n);

  std::unique_ptr<DeviceMemory> device_;
  std::unique_ptr<Pool> small_, large_;
  std::unordered_map<void*, Block*> active_blocks_;
  std::vector<std::pair<int64_t, Block*>> pending_events_;
  void* raw_alloc_within_fraction(size_t seg);

  AllocatorStats stats_;
  double fraction_ = 1.0;
  size_t max_split_ = SIZE_MAX;      // PyTorch's default: every block may be split
  size_t allowed_bytes_ = SIZE_MAX;  // fraction_ x total memory, SIZE_MAX while never set
  std::mutex mu_;
};

// The statistics under torch.cuda.memory_stats()'s keys ("allocated_bytes.all.current", ...).
// (max_split: the max_split_size in bytes, SIZE_MAX when unset -- reported as -1.)
std::vector<std::pair<std::string, int64_t>> memory_stats_items(const AllocatorStats& s, size_t max_split = SIZE_MAX);

// PYTORCH_CUDA_ALLOC_CONF's max_split_size_mb in bytes (SIZE_MAX when absent); PyTorch's errors for a
// malformed or unknown setting.
size_t max_split_size_from_config(const char* conf);

// PyTorch's out-of-memory message for `device_index`.
// (allowed: the memory fraction's limit in bytes, SIZE_MAX when none is set.)
std::string oom_message(size_t request, int device_index, size_t total, size_t free, size_t allocated, size_t reserved,
                        size_t allowed = SIZE_MAX);

}  // namespace ember
