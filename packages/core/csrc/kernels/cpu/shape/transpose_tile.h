// A transposing block copy, dst[j][i] = src[i][j], with in-register transposes (4 x 4 to 16 x 16
// floats, 4 x 4 doubles, 8 x 8 of 2 and 1 bytes): the tiled copy of a transposed tensor
// (copy_where_kernels.cpp) ran 2.3x slower than PyTorch's one element at a time, and 2-byte tiles
// of power-of-two row strides 18x slower (every column re-read rows evicted by set conflicts).
#pragma once
#include <cstdint>

namespace ember::shapes {

// For i < rows, j < cols: the element at src + i * src_stride + j * elem_size goes to
// dst + j * dst_stride + i * elem_size (strides in bytes, any sign). elem_size is 1, 2, 4 or 8.
void transpose_tile(const char* src, int64_t src_stride, char* dst, int64_t dst_stride, int64_t rows, int64_t cols,
                    int64_t elem_size);

}  // namespace ember::shapes
