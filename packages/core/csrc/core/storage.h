// Storage: a refcounted block of bytes on a device. The version counter lives
// here because every view of a storage must see the same count.
#pragma once
#include <atomic>
#include <cstddef>

#include "device.h"
#include "ref.h"

namespace ember {

using Deleter = void (*)(void* data, void* ctx, size_t nbytes);

struct StorageImpl : RefCounted {
  void* data = nullptr;
  size_t nbytes = 0;
  Device device;
  Deleter deleter = nullptr;  // null: memory owned by someone else for our lifetime
  void* ctx = nullptr;        // e.g. the NumPy array that owns the memory
  std::atomic<uint32_t> version{0};
  bool resizable = true;
  bool shared = false;  // set by share_memory_ (later issue)

  ~StorageImpl() override {
    if (deleter) deleter(data, ctx, nbytes);
  }
};

// A fresh CPU storage from the caching allocator.
Ref<StorageImpl> new_cpu_storage(size_t nbytes);
// Grow a storage in place (for resize_ / out= resizing), on its device.
void resize_storage(StorageImpl& s, size_t nbytes);
// Resize a storage to exactly nbytes, growing or shrinking (UntypedStorage.resize_): the
// first min(old, new) bytes are kept, the rest of a larger block is uninitialised.
void set_storage_nbytes(StorageImpl& s, size_t nbytes);

}  // namespace ember
