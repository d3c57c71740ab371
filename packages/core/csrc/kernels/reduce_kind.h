// What a reduction kernel computes (kernels/backend.h, ReduceKernels::reduce): device-independent,
// so the backend table and each device's kernels can name it.
#pragma once
#include <cstdint>

namespace ember {

// XorSum: the xor of the elements' 64-bit patterns (floats as float64, integers as int64), in an
// accumulator of that type (hash_tensor's).
enum class ReduceKind : uint8_t { Sum, NanSum, Prod, Max, Min, All, Any, SumSq, XorSum };

}  // namespace ember
