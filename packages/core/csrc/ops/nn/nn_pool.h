// Shared machinery of the pooling and upsampling ops (nn_pool*.cpp, nn_upsample.cpp).
// Every 1-, 2- or 3-d op runs on a contiguous (planes, D, H, W) view of its input: the
// planes are batch * channels, missing leading spatial dims have size 1, so one kernel
// serves all spatial ranks and parallelises over planes.
#pragma once
#include <array>
#include <optional>

#include "core/tensor.h"
#include "kernels/pool_window.h"  // adaptive_start / adaptive_end

namespace ember::pool {

using Arr3 = std::array<int64_t, 3>;

// Parse a pooling argument given as 1 or `n` ints into the last `n` of 3 slots; the
// leading slots get `fill`. An empty list gives `empty` (stride's "default to kernel").
Arr3 expand_arg(IntArrayRef v, int n, int64_t fill, const char* op, const char* what, const Arr3* empty = nullptr);

// An int[n] argument: a single int stands for n copies (PyTorch's parser rule for int[n]).
inline DimVector expand_ints(IntArrayRef v, int n) {
  DimVector r;
  for (size_t i = 0; i < (v.size() == 1 ? static_cast<size_t>(n) : v.size()); ++i)
    r.push_back(v.size() == 1 ? v[0] : v[i]);
  return r;
}

// The input as contiguous planes: x is (planes, D, H, W) with `n` trailing spatial dims.
struct Planes {
  Tensor x;  // contiguous
  int64_t planes = 0;
  Arr3 in{1, 1, 1};  // D, H, W (leading ones for n < 3)
  int n = 2;         // spatial rank
};
Planes make_planes(const Tensor& self, int n);

// The result shape: self's leading (batch, channel) dims followed by `out`'s last n dims.
DimVector out_shape(const Tensor& self, int n, const Arr3& out);

// PyTorch's pooling output size (floor or ceil mode; a window must start inside the input
// or left padding).
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil);

// Input rank check shared by the pooling ops: (n+1)-d or (n+2)-d, only the batch dim may be 0.
void check_pool_input(const Tensor& self, int n, const char* op);

// "(1x4x4)" style size text used in PyTorch's messages.
std::string sizes_x(std::initializer_list<int64_t> v);

// Write `src` (planes, m) into a zero (planes, plane_size) tensor at `indices` (per-plane flat
// positions, checked): max unpooling's forward.
Tensor plane_scatter(const Tensor& src, const Tensor& indices, int64_t plane_size, const char* op);
// Sum `src` into a zero (planes, plane_size) tensor at `indices` (valid by construction):
// max pooling's backward when no graph of it is needed.
Tensor plane_scatter_add(const Tensor& src, const Tensor& indices, int64_t plane_size);

}  // namespace ember::pool
