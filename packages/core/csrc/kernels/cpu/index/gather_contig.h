// gather along a contiguous last dimension: out[j] = x[idx[j]], the inner loop of gather.
#pragma once
#include <cstdint>

namespace ember {

// For j < len: out[j] = x[idx[j]] when 0 <= idx[j] < size, else 0 (the row is never read
// outside [0, size)). Returns false when some index was out of range. Elem is the element
// width in bytes, 4 or 8; the AVX-512 variant uses hardware gathers.
template <int Elem>
bool gather_contig(const void* x, const int64_t* idx, int64_t len, int64_t size, void* out);

}  // namespace ember
