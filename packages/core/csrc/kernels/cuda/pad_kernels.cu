// Reflection and replication padding on the GPU (ShapeKernels::pad, as the CPU's
// kernels/cpu/shape/pad_kernels.cpp). Forward: a thread per output element, in the output's memory
// order, reading the input element its coordinates map to (kernels/pad_source.h, the CPU's rule). Backward: a thread
// per input gradient summing the output gradients that read it, found per dim from the mapping's inverse (one range for
// replication, up to three positions for reflection), in the output's memory order -- the CPU's order of the sums, so
// the results are the CPU's bits and need no atomics.
#include <algorithm>
#include <cstdint>
#include <numeric>

#include "core/error.h"
#include "kernels/cuda/index_device.cuh"
#include "kernels/cuda/shape_kernels.h"
#include "kernels/element_bytes.h"
#include "kernels/pad_source.h"

namespace ember::cuda {

namespace {

using idx::Arith;
using idx::dev_t;
using idx::kBlock;

constexpr int kMaxDims = 5;  // a 3-d pad's batched input

// The dims outermost first in the output's memory order; strides in elements.
struct PadDims {
  int nd = 0;
  bool reflect = false;
  int64_t in_size[kMaxDims], in_stride[kMaxDims], out_size[kMaxDims], out_stride[kMaxDims], before[kMaxDims];
};

PadDims pad_dims(const Tensor& in, const Tensor& out, IntArrayRef before, bool reflect) {
  const int64_t nd = out.dim();
  EMBER_CHECK(nd <= kMaxDims, "pad: at most ", kMaxDims, " dims");
  int64_t order[kMaxDims];
  std::iota(order, order + nd, int64_t(0));
  std::stable_sort(order, order + nd, [&](int64_t a, int64_t b) { return out.stride(a) > out.stride(b); });
  PadDims p;
  p.nd = static_cast<int>(nd);
  p.reflect = reflect;
  for (int k = 0; k < p.nd; ++k) {
    const int64_t d = order[k];
    p.in_size[k] = in.size(d), p.in_stride[k] = in.stride(d);
    p.out_size[k] = out.size(d), p.out_stride[k] = out.stride(d), p.before[k] = before[d];
  }
  return p;
}

template <class W>
__global__ void pad_forward_kernel(const W* in, W* out, int64_t total, const PadDims p) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    int64_t rem = t, io = 0, oo = 0;
    for (int k = p.nd - 1; k >= 0; --k) {
      const int64_t j = rem % p.out_size[k];
      rem /= p.out_size[k];
      oo += j * p.out_stride[k];
      io += shapes::pad_source(j, p.in_size[k], p.before[k], p.reflect) * p.in_stride[k];
    }
    out[oo] = in[io];
  }
}

// The output coordinates reading input coordinate i of a dim, as ascending ranges [lo, hi) (the
// non-empty ones first, `count` of them).
struct Reads {
  int64_t lo[3], hi[3];
  int count;
};

__device__ __forceinline__ Reads reads_of(int64_t i, int64_t n, int64_t out_n, int64_t before, bool reflect) {
  Reads r{};
  auto add = [&](int64_t lo, int64_t hi) {
    lo = lo < 0 ? 0 : lo;
    hi = hi > out_n ? out_n : hi;
    if (lo < hi) r.lo[r.count] = lo, r.hi[r.count++] = hi;
  };
  if (reflect) {
    if (i > 0) add(before - i, before - i + 1);  // the mirror ahead
    add(before + i, before + i + 1);
    if (i < n - 1) add(before + 2 * (n - 1) - i, before + 2 * (n - 1) - i + 1);  // the mirror behind
  } else {
    add(i == 0 ? int64_t(0) : before + i, i == n - 1 ? out_n : before + i + 1);  // an edge takes its pad
  }
  return r;
}

// gi[input] = the sum of go over the outputs reading it, added in the outputs' memory order.
template <class D>
__global__ void pad_backward_kernel(D* gi, const D* go, int64_t total, const PadDims p) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    Reads r[kMaxDims];
    int at[kMaxDims];
    int64_t j[kMaxDims];
    int64_t rem = t, io = 0, oo = 0;
    bool any = true;
    for (int k = p.nd - 1; k >= 0; --k) {
      const int64_t i = rem % p.in_size[k];
      rem /= p.in_size[k];
      io += i * p.in_stride[k];
      r[k] = reads_of(i, p.in_size[k], p.out_size[k], p.before[k], p.reflect);
      any = any && r[k].count > 0;
      at[k] = 0;
      j[k] = r[k].lo[0];
      oo += j[k] * p.out_stride[k];
    }
    D acc{};
    // an odometer over the dims' ranges, innermost fastest (out's memory order)
    for (int k = 0; any && k >= 0;) {
      acc = Arith<D>::add(acc, go[oo]);
      for (k = p.nd - 1; k >= 0; --k) {
        int64_t next;
        if (j[k] + 1 < r[k].hi[at[k]]) next = j[k] + 1;
        else if (at[k] + 1 < r[k].count) next = r[k].lo[++at[k]];
        else next = r[k].lo[at[k] = 0];
        oo += (next - j[k]) * p.out_stride[k];
        const bool wrapped = next == r[k].lo[0] && at[k] == 0;
        j[k] = next;
        if (!wrapped) break;
      }
    }
    gi[io] = acc;
  }
}

}  // namespace

void pad(const Tensor& in, const Tensor& out, IntArrayRef before, bool reflect, bool backward) {
  if (out.numel() == 0 || in.numel() == 0) return;
  const PadDims p = pad_dims(in, out, before, reflect);
  const LaunchDevice on(in.device().index);
  if (!backward) {
    const int64_t n = out.numel();
    by_itemsize(out.itemsize(), [&](auto w) {
      using W = decltype(w);
      pad_forward_kernel<W><<<grid_for(n), kBlock, 0, current_stream(-1)>>>(reinterpret_cast<const W*>(in.raw()),
                                                                            reinterpret_cast<W*>(out.raw()), n, p);
    });
    check_launch(reflect ? "reflection pad" : "replication pad");
    return;
  }
  const int64_t n = in.numel();  // in: the input's gradient, out: the output's
  auto run = [&](auto tag) {
    using D = dev_t<decltype(tag)>;
    pad_backward_kernel<D><<<grid_for(n), kBlock, 0, current_stream(-1)>>>(reinterpret_cast<D*>(in.raw()),
                                                                           reinterpret_cast<const D*>(out.raw()), n, p);
  };
  switch (in.dtype()) {
    EMBER_CASES_FLOAT([&] { run(scalar_t{}); })
    EMBER_CASES_COMPLEX([&] { run(scalar_t{}); })
    default:
      dtype_not_implemented("pad_backward", in.dtype());
  }
  check_launch(reflect ? "reflection pad backward" : "replication pad backward");
}

}  // namespace ember::cuda
