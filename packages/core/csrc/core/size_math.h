// Checked size arithmetic: every element count, byte count and extent computed from
// user-given sizes, strides or offsets goes through here, so an absurd size is a
// RuntimeError (PyTorch's message) and never a wrapped-around small allocation.
#pragma once
#include <cstddef>
#include <cstdint>

#include "error.h"
#include "small_vec.h"

namespace ember {

// a * b and a + b, or a RuntimeError "<what>: integer multiplication/addition overflow".
inline int64_t mul_or_fail(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_expect(__builtin_mul_overflow(a, b, &r), 0))
    fail(ErrorKind::Runtime, what, ": integer multiplication overflow");
  return r;
}
inline int64_t add_or_fail(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_expect(__builtin_add_overflow(a, b, &r), 0))
    fail(ErrorKind::Runtime, what, ": integer addition overflow");
  return r;
}

// The product of sizes (all >= 0), or PyTorch's "numel: integer multiplication overflow".
// Inline: every view computes it; the errors are sorted out of line.
int64_t checked_numel_slow(IntArrayRef sizes);
inline int64_t checked_numel(IntArrayRef sizes) {
  int64_t n = 1;
  bool bad = false;
  for (int64_t s : sizes) bad |= __builtin_mul_overflow(n, s, &n) | (s < 0);
  return __builtin_expect(bad, 0) ? checked_numel_slow(sizes) : n;
}
// Bytes of a contiguous tensor of these sizes: negative sizes and counts past INT64_MAX
// bytes raise PyTorch's errors ("Trying to create tensor with negative dimension",
// "Storage size calculation overflowed with sizes=[...]").
size_t contiguous_nbytes(IntArrayRef sizes, size_t itemsize);
// Bytes, strides and element count of a new contiguous tensor in one pass (the hot
// path of every allocation), with the errors of contiguous_nbytes and contiguous_strides.
size_t contiguous_layout(IntArrayRef sizes, size_t itemsize, DimVector& strides, int64_t& numel);
// Bytes a strided view needs from the start of its storage (0 when it has no element),
// with the same errors (the message names the strides too).
size_t strided_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize);
// A double computed as a size (arange's length, interpolate's output size): PyTorch's
// "invalid size, possible overflow?" unless it is finite and in [0, INT64_MAX].
int64_t size_from_double(double v, const char* what);

}  // namespace ember
