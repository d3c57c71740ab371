// Device scratch for the CUDA kernels that take host arrays or need a work buffer: Uploaded holds
// a copy of host values, Scratch an uninitialised buffer; both go back to the caching allocator
// when the call ends (stream-ordered: reused only after the kernels queued before).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/allocator.h"
#include "core/device.h"
#include "kernels/device_transfer.h"

namespace ember::cuda {

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
    if (nbytes) device_from_host(as<void>(), device, host, nbytes);
  }
};

}  // namespace ember::cuda
