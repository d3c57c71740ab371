#include "reduce_iter.h"

#include <algorithm>

namespace ember {

ReduceIter::ReduceIter(const Tensor& out_keepdim, const Tensor& input) : out(out_keepdim), in(input) {
  int nd = static_cast<int>(input.dim());
  EMBER_CHECK(nd <= kMaxIterDims, "reduction: too many dimensions");
  numel = input.numel();
  int64_t oi = static_cast<int64_t>(out.itemsize()), ii = static_cast<int64_t>(in.itemsize());
  optr = out.raw();
  iptr = in.raw();
  if (nd == 0) {
    ndim = 1;
    shape[0] = 1;
    ostride[0] = istride[0] = 0;
    return;
  }
  // Innermost-first; input strides decide the order, output strides break ties.
  int perm[kMaxIterDims];
  for (int d = 0; d < nd; ++d) perm[d] = nd - 1 - d;
  auto os = [&](int d) { return out.sizes()[d] == 1 ? int64_t(0) : out.strides()[d] * oi; };
  auto is = [&](int d) { return in.sizes()[d] == 1 ? int64_t(0) : in.strides()[d] * ii; };
  auto should_swap = [&](int inner, int outer) {
    int64_t a = is(inner), b = is(outer);
    if (a != 0 && b != 0 && a != b) return a > b;
    // beside an expanded input dim, TensorIterator's rule: reduced dims go innermost (so an
    // expanded vector's reduction runs along its memory, in aten's order)
    if ((a == 0) != (b == 0) && (os(inner) == 0) != (os(outer) == 0)) return os(outer) == 0;
    a = os(inner), b = os(outer);
    if (a != 0 && b != 0 && a != b) return a > b;
    return false;
  };
  for (int i = 1; i < nd; ++i)
    for (int j = i; j > 0 && should_swap(perm[j - 1], perm[j]); --j) std::swap(perm[j - 1], perm[j]);
  int n = 0;
  for (int k = 0; k < nd; ++k) {
    int d = perm[k];
    int64_t sz = in.sizes()[d], o = os(d), i = is(d);
    if (n > 0 && (sz == 1 || (shape[n - 1] * ostride[n - 1] == o && shape[n - 1] * istride[n - 1] == i))) {
      shape[n - 1] *= sz;
      continue;
    }
    if (n > 0 && shape[n - 1] == 1) {
      shape[n - 1] = sz;
      ostride[n - 1] = o;
      istride[n - 1] = i;
      continue;
    }
    shape[n] = sz;
    ostride[n] = o;
    istride[n] = i;
    ++n;
  }
  ndim = std::max(n, 1);
}

int ReduceIter::split_dim(bool* private_acc) const {
  int best = -1;
  for (int d = ndim - 1; d >= 0; --d)
    if (ostride[d] != 0 && (best < 0 || shape[d] > shape[best])) best = d;
  if (best >= 0 && shape[best] >= 2 * get_num_threads()) {
    *private_acc = false;
    return best;
  }
  // All outputs shared (or too few): split the largest dim, reduce privately.
  best = 0;
  for (int d = 0; d < ndim; ++d)
    if (shape[d] > shape[best]) best = d;
  *private_acc = true;
  return best;
}

}  // namespace ember
