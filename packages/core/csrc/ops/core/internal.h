// Helpers shared by the hand-written op files (not part of the op API).
#pragma once
#include <optional>

#include "core/memory_format.h"
#include "core/tensor.h"
#include "iter/resize_out.h"  // resize_out, for the op bodies

namespace ember {

// An uninitialised tensor shaped like `t`; keeps a dense non-contiguous layout
// (e.g. transposed) unless a memory format says otherwise.
Tensor empty_with_layout_of(const Tensor& t, ScalarType dtype, std::optional<MemoryFormat> mf);
// copy_'s shape check where nothing is written (an empty or meta destination): src broadcasts to dst
void check_copy_broadcasts(const Tensor& dst, const Tensor& src);
Tensor empty_with_layout_of(const Tensor& t, ScalarType dtype, std::optional<MemoryFormat> mf, Device device);
// Dense with no gaps or overlaps in some dim order (e.g. a transposed matrix, channels-last).
bool non_overlapping_and_dense(const Tensor& t);
// An NC* result in the layout aten's CPU kernels give it for channels-last operands (they run on
// that layout, ember's on NC*): y as is for Contiguous, else y's values in mf's strides (what
// empty_like(y, memory_format=mf) has, not merely a layout that is_contiguous(mf) accepts).
Tensor in_memory_format(const Tensor& y, MemoryFormat mf);
// An uninitialised tensor of `sizes` laid out in mf's strides (core's allocator: no deterministic fill)
Tensor empty_in_format(IntArrayRef sizes, MemoryFormat mf, ScalarType dtype, Device device);
inline MemoryFormat suggest_memory_format(const Tensor& t) { return suggest_memory_format(t.sizes(), t.strides()); }

// aten's dim_list_to_bitset: each dim wrapped (a 0-d tensor takes 0 and -1) and none listed
// twice -- also for a 0-d tensor, where both wrap to 0.
// wrap_all_first: aten's reductions (resize_reduction) wrap every dim before they look for
// repeats, so an out-of-range dim after a repeated one is the IndexError; its make_dim_mask
// (var/std, vector_norm, squeeze) checks dim by dim.
inline uint64_t dim_list_bits(IntArrayRef dims, int64_t nd, bool wrap_all_first = false) {
  EMBER_CHECK(nd <= 64, "only tensors with up to 64 dims are supported");
  if (wrap_all_first)
    for (int64_t d : dims) (void)wrap_dim(d, nd);
  uint64_t bits = 0;
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, nd);
    EMBER_CHECK(!((bits >> w) & 1u), "dim ", w, " appears multiple times in the list of dims");
    bits |= uint64_t(1) << w;
  }
  return bits;
}

// Tensor.to(dtype) as aten calls it inside other ops: self when of that dtype, else _to_copy (with
// their nested op events while a profiler records).
Tensor to_recorded(const Tensor& t, ScalarType dtype);

// Copies between devices (ops/core/device_copy.cpp): copy_into's branch when src and dst live
// on different devices, and Tensor.to(device) (a new tensor on `device`, same dtype).
void copy_across_devices(const Tensor& dst, const Tensor& src, bool non_blocking = false);
// non_blocking: queue the copy on the current stream where the host side is pinned (a move to the
// host then lands in pinned memory, as aten's).
Tensor to_device(const Tensor& x, Device device, bool non_blocking = false);
// Pinned host memory (Tensor.pin_memory / is_pinned; kernels/device_transfer.h's allocator),
// contiguous or in the given (non-overlapping) strides, over a storage of their span.
Tensor pinned_empty(IntArrayRef sizes, ScalarType dtype, std::optional<IntArrayRef> strides = std::nullopt);
Tensor pin_memory(const Tensor& x);
bool tensor_is_pinned(const Tensor& x);

}  // namespace ember
