// Moving elements by their size alone: copies, fills and gathers need no dtype, only an
// unsigned word as wide as the element (two for a complex128).
#pragma once
#include <cstddef>
#include <cstdint>

namespace ember {

// A 16-byte element (complex128) moved as two words.
struct Bytes16 {
  uint64_t lo = 0, hi = 0;
  Bytes16() = default;
  explicit constexpr Bytes16(uint64_t v) : lo(v) {}
  bool operator==(const Bytes16& o) const { return lo == o.lo && hi == o.hi; }
};

// Calls f(T{}) with an unsigned type of the element size.
template <class F>
void by_itemsize(size_t sz, const F& f) {
  switch (sz) {
    case 1:
      f(uint8_t{});
      break;
    case 2:
      f(uint16_t{});
      break;
    case 4:
      f(uint32_t{});
      break;
    case 16:
      f(Bytes16{});
      break;
    default:
      f(uint64_t{});
      break;
  }
}

}  // namespace ember
