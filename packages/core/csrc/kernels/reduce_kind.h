// What a reduction kernel computes (kernels/backend.h, ReduceKernels::reduce): device-independent,
// so the backend table and each device's kernels can name it.
#pragma once
#include <cstdint>

namespace ember {

enum class ReduceKind : uint8_t { Sum, NanSum, Prod, Max, Min, All, Any, SumSq };

}  // namespace ember
