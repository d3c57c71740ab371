// Device scratch for the CUDA kernels that take host arrays or need a work buffer: Uploaded holds
// a copy of host values (queued, no wait), Scratch an uninitialised buffer, DeviceArray n elements of T with their
// transfers; all go back to the caching allocator when the call ends (stream-ordered: reused only
// after the kernels queued before).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/allocator.h"
#include "core/device.h"
#include "core/error.h"
#include "kernels/cuda/stream.h"
#include "kernels/device_transfer.h"

namespace ember::cuda {

// Host values to device memory on the device's current stream without waiting: staged through a
// pinned block (held until the copy is done), so a kernel's small arguments cost no host stall.
void upload_async(void* dst, int device, const void* host, size_t nbytes);

class Scratch {
 public:
  Scratch(size_t nbytes, int device) : nbytes_(nbytes), device_{DeviceType::CUDA, int8_t(device)} {
    if (nbytes_) p_ = allocate(nbytes_, device_);
  }
  ~Scratch() {
    if (p_) deallocate(p_, nbytes_, device_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
  size_t nbytes_;
  Device device_;
};

class Uploaded : public Scratch {
 public:
  Uploaded(const void* host, size_t nbytes, int device) : Scratch(nbytes, device) {
    if (nbytes) upload_async(as<void>(), device, host, nbytes);
  }
};

// n elements of T (at least one), zeroed or filled from the host on the current stream.
template <class T>
class DeviceArray : public Scratch {
 public:
  DeviceArray(int64_t n, int device)
      : Scratch(size_t(n > 0 ? n : 1) * sizeof(T), device), n_(n > 0 ? n : 1), device_(device) {}
  T* get() const { return as<T>(); }
  void zero() const {
    const cudaError_t e = cudaMemsetAsync(get(), 0, size_t(n_) * sizeof(T), current_stream(device_));
    EMBER_CHECK(e == cudaSuccess, "CUDA error: ", cudaGetErrorString(e), " (scratch memset)");
  }
  void upload(const T* host, int64_t n) const { upload_async(get(), device_, host, size_t(n) * sizeof(T)); }
  void download(T* host, int64_t n) const { device_to_host(host, get(), device_, size_t(n) * sizeof(T)); }
  T first() const {
    T v;
    download(&v, 1);
    return v;
  }

 private:
  int64_t n_;
  int device_;
};

}  // namespace ember::cuda
