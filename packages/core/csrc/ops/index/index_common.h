// Shared helpers for the index ops (index.cpp, index_advanced.cpp, ...): index
// normalisation, and the index family's vocabulary (kernels/index_args.h) by its old names.
#pragma once
#include <cstring>
#include <vector>

#include "core/tensor.h"
#include "kernels/index_args.h"

namespace ember::index_detail {

using indexing::by_itemsize;
using indexing::Bytes16;
using indexing::sizes1;
using indexing::strides1;

// The index values as a contiguous int64 tensor (int32/int64 accepted).
Tensor as_long_contiguous(const Tensor& index);

// t on like's device (itself when there already): the bindings let a CPU 0-d tensor (an index, a
// mask, a value) join a CUDA op, and advanced indexing takes CPU index tensors for a CUDA self.
Tensor to_device_of(const Tensor& t, const Tensor& like);

// The first of idx's values (contiguous int64) outside [0, size), or [-size, size) when
// negative_ok: its position (idx.numel() when none) and value. On a GPU the check runs there and
// only the answer comes back: the host never reads device memory element by element.
struct FirstBad {
  int64_t pos = 0, value = 0;
};
FirstBad first_outside(const Tensor& idx, int64_t size, bool negative_ok);

// take / put_'s indices into a flat tensor of n elements: in [-n, n), checked here on the CPU
// ("out of range: tried to access index ..."), by the kernel on a GPU as take_check says.
void check_take_range(const Tensor& idx, int64_t n);
inline indexing::IndexCheck take_check() { return {kTakeOutOfRange, 0, true}; }

inline bool same_shape(IntArrayRef a, IntArrayRef b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace ember::index_detail
