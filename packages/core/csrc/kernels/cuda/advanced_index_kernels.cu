// Advanced indexing's CUDA entries (kernels/cpu/index/advanced_index.cpp on the CPU): the element
// offsets over the indexed dims, the gather of self[indices] and index_put_'s writes. The op body
// (ops/index/index_advanced.cpp) hands over AdvancedRows whose arrays are device memory. One thread
// per (index position, rest position); index_put_ with accumulate adds atomically, a plain put to
// one place from two positions keeps one of them (as PyTorch on CUDA). An index out of range is
// recorded for the next wait (kernels/cuda/device_error.h), never read: the op does not wait.
#include "kernels/cuda/device_error.cuh"
#include "kernels/cuda/index_device.cuh"
#include "kernels/cuda/index_kernels.h"

namespace ember::cuda {

using namespace idx;

namespace {

// A position with an index out of range gets a negative offset (valid ones are never negative):
// later dims leave it, the gather writes 0 there and the put skips it.
constexpr int64_t kBadOffset = -1;

__global__ void add_offsets_kernel(const int64_t* ip, int64_t n, int64_t size, int64_t stride, int64_t* off,
                                   DeviceErrorRecord* err, int64_t dim) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = ip[i];
    if (v < -size || v >= size) {
      if (err) report_device_error(err, kIndexOutOfBounds, v, dim, size);
      off[i] = kBadOffset;
    } else if (off[i] >= 0) {
      off[i] += (v < 0 ? v + size : v) * stride;
    }
  }
}

// Where (i, r) reads in self and writes in the result: AdvancedRows' three layouts.
struct RowsView {
  const int64_t* off;
  const int64_t* rs;
  const int64_t* ro;
  int64_t nb, rn, bs;
  bool dense;
  // false for a position whose index was out of range
  __device__ __forceinline__ bool at(int64_t t, int64_t& self_off, int64_t& out_off) const {
    const int64_t i = t / rn, r = t % rn;
    const bool plain = rn == 1 || dense || rs == nullptr;
    self_off = off[i] + (plain ? r : rs[r]);
    out_off = i * bs + (plain ? r : ro[r]);
    return off[i] >= 0;
  }
};

template <class U>
__global__ void advanced_gather_kernel(const U* x, U* out, const RowsView v, int64_t total) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += int64_t(gridDim.x) * blockDim.x) {
    int64_t so, oo;
    out[oo] = v.at(t, so, oo) ? x[so] : U{};
  }
}

template <bool Acc, class D>
__global__ void advanced_put_kernel(D* x, const D* values, const RowsView v, int64_t total) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += int64_t(gridDim.x) * blockDim.x) {
    int64_t so, vo;
    if (!v.at(t, so, vo)) continue;
    if constexpr (Acc) atomic_add(x + so, values[vo]);
    else x[so] = values[vo];
  }
}

RowsView view_of(const indexing::AdvancedRows& a) {
  return {a.offsets, a.rest_src, a.rest_out, a.nb, a.rn, a.b_stride, a.dense};
}

}  // namespace

bool add_offsets(const int64_t* ip, int64_t n, int64_t size, int64_t stride, int64_t* off, int64_t dim, bool report) {
  if (n <= 0) return true;
  const int device = device_of(off, "index");
  const LaunchDevice on(device);
  add_offsets_kernel<<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(
      ip, n, size, stride, off, report ? device_error_record(device) : nullptr, dim);
  check_launch("index offsets kernel");
  return true;  // a bad index is the device's to report
}

void advanced_gather(const Tensor& self, const Tensor& out, const indexing::AdvancedRows& a) {
  const int64_t total = a.nb * a.rn;
  if (total == 0) return;
  const LaunchDevice on(self.device().index);
  by_itemsize(self.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    advanced_gather_kernel<U><<<blocks_for(total), kBlock, 0, current_stream(-1)>>>(
        reinterpret_cast<const U*>(self.raw()), reinterpret_cast<U*>(out.raw()), view_of(a), total);
  });
  check_launch("index kernel");
}

void advanced_put(const Tensor& self, const Tensor& values, const indexing::AdvancedRows& a, bool accumulate) {
  const int64_t total = a.nb * a.rn;
  if (total == 0) return;
  const LaunchDevice on(self.device().index);
  if (!accumulate) {  // a move of bytes, whatever the dtype
    by_itemsize(self.itemsize(), [&](auto tag) {
      using U = decltype(tag);
      advanced_put_kernel<false, U><<<blocks_for(total), kBlock, 0, current_stream(-1)>>>(
          reinterpret_cast<U*>(self.raw()), reinterpret_cast<const U*>(values.raw()), view_of(a), total);
    });
  } else {
    EMBER_DISPATCH_ALL_AND_COMPLEX(self.dtype(), "index_put_", [&] {
      using D = dev_t<scalar_t>;
      advanced_put_kernel<true, D><<<blocks_for(total), kBlock, 0, current_stream(-1)>>>(
          reinterpret_cast<D*>(self.raw()), reinterpret_cast<const D*>(values.raw()), view_of(a), total);
    });
  }
  check_launch("index_put kernel");
}

}  // namespace ember::cuda
