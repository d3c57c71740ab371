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

inline bool same_shape(IntArrayRef a, IntArrayRef b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace ember::index_detail
