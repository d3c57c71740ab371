// The one-value-per-row selections of the sort kernels (kernels/backend.h, SortKernels::select):
// device-independent, so the backend table can name them for every device.
#pragma once
#include <cstdint>

namespace ember {

enum class SelectKind : uint8_t { Kth, Median, NanMedian, Mode };

}  // namespace ember
