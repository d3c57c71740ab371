// Small host arrays a kernel reads (pooling windows): carried in the launch's parameters when
// they fit, so the call queues no copy and stages nothing in pinned memory, as the fused Adam's
// tensor lists; larger ones are uploaded (device_scratch.h) and read from device memory.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/cuda/device_scratch.h"

namespace ember::cuda {

// A kernel argument: Cap values in the parameters, or (dev not null) a pointer to device memory.
template <class T, int Cap>
struct InlineArray {
  T local[Cap];
  const T* dev;
  __device__ __forceinline__ T operator[](int64_t i) const { return dev ? dev[i] : local[i]; }
};

// The host side: v's values in the argument, or uploaded for the call (the upload lives as long
// as this object, freed stream-ordered after the kernels queued before).
template <class T, int Cap>
class InlineOrUploaded {
 public:
  InlineOrUploaded(const std::vector<T>& v, int device) {
    arg_.dev = nullptr;
    if (v.size() <= static_cast<size_t>(Cap)) {
      std::copy(v.begin(), v.end(), arg_.local);
    } else {
      up_.emplace(v.data(), v.size() * sizeof(T), device);
      arg_.dev = up_->template as<T>();
    }
  }
  const InlineArray<T, Cap>& arg() const { return arg_; }

 private:
  InlineArray<T, Cap> arg_{};
  std::optional<Uploaded> up_;
};

}  // namespace ember::cuda
