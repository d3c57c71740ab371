// Channels-last layouts: the strides of a format and the test that a tensor is dense in it.
#include "memory_format.h"

#include "error.h"

namespace ember {

namespace {
int64_t format_rank(MemoryFormat mf) {
  return mf == MemoryFormat::ChannelsLast ? 4 : mf == MemoryFormat::ChannelsLast3d ? 5 : 0;
}

// Dims from the innermost outwards: C, the spatial dims from the last, then N.
// Products of sizes wrap as aten's do (a tensor with a zero size may multiply the others past int64).
int64_t wrapping_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

SmallVec<int64_t, 5> channels_last_order(int64_t rank) {
  SmallVec<int64_t, 5> order;
  order.push_back(1);
  for (int64_t d = rank - 1; d >= 2; --d) order.push_back(d);
  order.push_back(0);
  return order;
}
}  // namespace

void check_memory_format_rank(int64_t dim, MemoryFormat mf) {
  const int64_t rank = format_rank(mf);
  EMBER_CHECK(rank == 0 || dim == rank, "required rank ", rank, " tensor to use ",
              rank == 4 ? "channels_last" : "channels_last_3d", " format");
}

DimVector memory_format_strides(IntArrayRef sizes, MemoryFormat mf) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  DimVector st(static_cast<size_t>(n), 1);
  int64_t acc = 1;
  if (format_rank(mf) == 0) {
    for (int64_t d = n - 1; d >= 0; --d) {
      st[d] = acc;
      acc = wrapping_mul(acc, sizes[d] > 1 ? sizes[d] : 1);
    }
    return st;
  }
  check_memory_format_rank(n, mf);
  for (int64_t d : channels_last_order(n)) {
    st[d] = acc;
    acc = wrapping_mul(acc, sizes[d]);
  }
  return st;
}

bool follows_memory_format(IntArrayRef sizes, IntArrayRef strides, MemoryFormat mf) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (format_rank(mf) != n) return false;
  int64_t expected = 1;
  for (int64_t d : channels_last_order(n)) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected = wrapping_mul(expected, sizes[d]);
  }
  return true;
}

MemoryFormat suggest_memory_format(IntArrayRef sizes, IntArrayRef strides) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  if ((n != 4 && n != 5) || strides[1] == 0) return MemoryFormat::Contiguous;
  int64_t min = 0;
  for (int64_t d : channels_last_order(n)) {
    if (sizes[d] == 0 || strides[d] < min) return MemoryFormat::Contiguous;
    if (d == 0 && min == strides[1]) return MemoryFormat::Contiguous;  // N1..1: contiguous by default
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return n == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
}

}  // namespace ember
