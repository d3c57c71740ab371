#include "size_math.h"

#include <cmath>

#include "tensor.h"

namespace ember {

namespace {
[[noreturn]] void overflowed(IntArrayRef sizes, const IntArrayRef* strides) {
  if (strides)
    fail(ErrorKind::Runtime, "Storage size calculation overflowed with sizes=", shape_str(sizes),
         " and strides=", shape_str(*strides));
  fail(ErrorKind::Runtime, "Storage size calculation overflowed with sizes=", shape_str(sizes));
}
// c10's computeStorageNbytesContiguous for a tensor with a zero dim: the sizes multiplied in order in
// uint64 with a sticky overflow flag, so a prefix product past 2**64 fails even though the zero that
// follows makes the count 0 (empty(4, 2**31 - 4, 2**31 + 6, 0) raises; empty(2**62, 3, 0) does not).
void check_zero_size_storage(IntArrayRef sizes) {
  uint64_t prod = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(prod, static_cast<uint64_t>(s), &prod);
  if (overflow) overflowed(sizes, nullptr);
}
void check_nonnegative(IntArrayRef sizes) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", shape_str(sizes));
}
}  // namespace

int64_t checked_numel_slow(IntArrayRef sizes) {
  check_nonnegative(sizes);  // a backstop: the ops check their own sizes with PyTorch's messages first
  // c10's rule: the sizes multiplied in order in uint64 with a sticky overflow flag, so a zero after a
  // prefix product past 2**64 does not save it (expand(2**62, 2**62, 0) raises, (3, 2**62, 0) does not)
  uint64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(s), &n);
  if (overflow || n > static_cast<uint64_t>(INT64_MAX))
    fail(ErrorKind::Runtime, "numel: integer multiplication overflow");
  return static_cast<int64_t>(n);
}

size_t contiguous_nbytes(IntArrayRef sizes, size_t itemsize) {
  check_nonnegative(sizes);
  int64_t n = 1, bytes = 0;
  bool overflow = false;
  for (int64_t s : sizes) {
    if (s == 0) {
      check_zero_size_storage(sizes);
      return 0;
    }
    overflow |= __builtin_mul_overflow(n, s, &n);
  }
  if (overflow || __builtin_mul_overflow(n, static_cast<int64_t>(itemsize), &bytes)) overflowed(sizes, nullptr);
  return static_cast<size_t>(bytes);
}

size_t contiguous_layout(IntArrayRef sizes, size_t itemsize, DimVector& strides, int64_t& numel) {
  const size_t nd = sizes.size();
  strides.resize(nd);
  int64_t s = 1;  // the product of max(size, 1) right of dim i: its stride
  bool bad = false, zero = false, last_overflow = false;
  for (size_t i = nd; i-- > 0;) {
    const int64_t sz = sizes[i];
    strides[i] = s;
    bad |= sz < 0;
    zero |= sz == 0;
    const bool o = __builtin_mul_overflow(s, sz > 1 ? sz : 1, &s);
    if (i > 0) bad |= o;     // a stride that does not fit
    else last_overflow = o;  // only the element count does not fit
  }
  int64_t bytes = 0;
  if (__builtin_expect(!bad, 1)) {
    if (zero) {
      check_zero_size_storage(sizes);  // (a rare path: only tensors with a zero dim)
      numel = 0;
      return 0;
    }
    if (!last_overflow && !__builtin_mul_overflow(s, static_cast<int64_t>(itemsize), &bytes)) {
      numel = s;
      return static_cast<size_t>(bytes);
    }
  }
  // Something is wrong: the separate computations raise PyTorch's error for it, in its order.
  const size_t nbytes = contiguous_nbytes(sizes, itemsize);
  strides = contiguous_strides(sizes);
  numel = checked_numel(sizes);
  return nbytes;
}

size_t strided_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize) {
  check_nonnegative(sizes);
  int64_t last = offset, bytes = 0;  // the index of the last element, then the bytes up to it
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    int64_t span = 0;
    overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &span);
    overflow |= span < 0;  // c10 computes in uint64: a negative stride's span overflows too
    overflow |= __builtin_add_overflow(last, span, &last);
  }
  if (overflow || __builtin_add_overflow(last, int64_t(1), &last) ||
      __builtin_mul_overflow(last, static_cast<int64_t>(itemsize), &bytes))
    overflowed(sizes, &strides);
  return static_cast<size_t>(bytes);
}

int64_t size_from_double(double v, const char* what) {
  // 2^63 is the first double past INT64_MAX; NaN fails both comparisons.
  EMBER_CHECK(v >= 0 && v < 9223372036854775808.0, what, ": invalid size, possible overflow?");
  return static_cast<int64_t>(v);
}

}  // namespace ember
