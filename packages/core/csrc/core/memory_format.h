#pragma once
#include <cstdint>

namespace ember {
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };
}  // namespace ember
