// ReduceIter: input and a keepdim-shaped output (stride 0 on reduced dims),
// dims ordered by the input's strides so the innermost run is contiguous in
// memory. Kernels see runs that either reduce into one output element
// (output stride 0) or accumulate elementwise into a row of outputs.
#pragma once
#include "../core/parallel.h"
#include "../core/tensor.h"
#include "elementwise_iter.h"

namespace ember {

struct ReduceIter {
  // Borrowed: the reduction's own tensors outlive its iteration (no reference counting per
  // reduction or per parallel slice).
  const Tensor& out;  // keepdim shape, contiguous, accumulator dtype
  const Tensor& in;
  int ndim = 0;
  int64_t numel = 0;
  int64_t shape[kMaxIterDims];
  int64_t ostride[kMaxIterDims];  // bytes
  int64_t istride[kMaxIterDims];  // bytes
  char* optr = nullptr;
  const char* iptr = nullptr;

  ReduceIter(const Tensor& out_keepdim, const Tensor& input);

  // A sub-iteration over [b, e) of dim d.
  ReduceIter slice(int d, int64_t b, int64_t e) const {
    ReduceIter c = *this;
    c.shape[d] = e - b;
    c.optr += b * ostride[d];
    c.iptr += b * istride[d];
    c.numel = numel / shape[d] * (e - b);
    return c;
  }

  // f(out, in, out_stride, in_stride, n) for every innermost run.
  template <class F>
  void serial(const F& f) const {
    if (numel == 0) return;
    int64_t idx[kMaxIterDims] = {0};
    while (true) {
      char* o = optr;
      const char* i = iptr;
      for (int d = 1; d < ndim; ++d) {
        o += idx[d] * ostride[d];
        i += idx[d] * istride[d];
      }
      f(o, i, ostride[0], istride[0], shape[0]);
      int d = 1;
      for (; d < ndim; ++d) {
        if (++idx[d] < shape[d]) break;
        idx[d] = 0;
      }
      if (d >= ndim) break;
    }
  }

  // The dim to split across threads, and whether threads must keep private
  // accumulators (when every output element is shared by all slices).
  int split_dim(bool* private_acc) const;
};

}  // namespace ember
