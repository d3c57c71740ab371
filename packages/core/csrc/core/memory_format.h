#pragma once
#include <cstdint>

#include "small_vec.h"

namespace ember {
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

// channels_last (rank 4) and channels_last_3d (rank 5): RuntimeError naming the format for another
// rank, as aten's empty does; no-op for contiguous / preserve.
void check_memory_format_rank(int64_t dim, MemoryFormat mf);
// The dense strides of sizes laid out in mf (channels-last: C innermost, then W, H(, D), then N;
// aten's products of the sizes, zero sizes included).
DimVector memory_format_strides(IntArrayRef sizes, MemoryFormat mf);
// Whether (sizes, strides) is dense in mf: aten's is_contiguous(memory_format), which skips the
// stride of a size-1 dim and is false for a rank other than the format's.
bool follows_memory_format(IntArrayRef sizes, IntArrayRef strides, MemoryFormat mf);
// aten's suggest_memory_format: ChannelsLast(3d) for a rank-4 (5) tensor whose strides order its
// dims as that format does (is_channels_last_strides_*d), Contiguous otherwise.
MemoryFormat suggest_memory_format(IntArrayRef sizes, IntArrayRef strides);
}  // namespace ember
