// Max pooling (windowed and adaptive) with flat per-plane indices, and max unpooling.
// NaN wins a window (PyTorch's rule: `v > max || isnan(v)`), so NaN propagates.
#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/internal.h"
#include "ops/nn/nn_pool.h"

namespace ember {

using pool::Arr3;

namespace {

using pool::Span;

// aten's max pooling kernels keep a channels-last input's layout, in the values and the indices
// (all but adaptive_max_pool3d's, which is contiguous)
std::tuple<Tensor, Tensor> in_layout_of(const Tensor& self, const std::tuple<Tensor, Tensor>& r) {
  const MemoryFormat mf = suggest_memory_format(self);
  return {in_memory_format(std::get<0>(r), mf), in_memory_format(std::get<1>(r), mf)};
}

std::tuple<Tensor, Tensor> run_max(const Tensor& self, int n, const Arr3& out, const char* name,
                                   const std::function<Span(int, int64_t)>& bounds_fn) {
  pool::Planes p = pool::make_planes(self, n);
  DimVector shape = pool::out_shape(self, n, out);
  Tensor y = empty(shape, self.dtype(), self.device());
  Tensor ind = empty(shape, ScalarType::Int64, self.device());
  if (y.numel() == 0) {
    // aten's kernels dispatch on the dtype even with nothing to compute: no bool or complex instance
    if (self.dtype() == ScalarType::Bool || is_complex(self.dtype())) dtype_not_implemented(name, self.dtype());
    return {y, ind};
  }
  // Precompute every window's span per dim (cheap) so the kernel does no division.
  std::array<std::vector<Span>, 3> spans;
  for (int d = 0; d < 3; ++d)
    for (int64_t o = 0; o < out[d]; ++o) spans[d].push_back(bounds_fn(d, o));
  const Span* sp[3] = {spans[0].data(), spans[1].data(), spans[2].data()};
  backend(self).pool.max_windows(self.dtype(), name, p.x.raw(), p.planes, p.in.data(), out.data(), sp, y.raw(),
                                 ind.data<int64_t>());
  return {y, ind};
}

std::tuple<Tensor, Tensor> max_pool_nd(const Tensor& self, int n, IntArrayRef kernel_size, IntArrayRef stride,
                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, const char* name) {
  const Arr3 k = pool::expand_arg(kernel_size, n, 1, name, "kernel_size");
  const Arr3 s = pool::expand_arg(stride, n, 1, name, "stride", &k);
  const Arr3 pd = pool::expand_arg(padding, n, 0, name, "padding");
  const Arr3 dl = pool::expand_arg(dilation, n, 1, name, "dilation");
  for (int d = 3 - n; d < 3; ++d) EMBER_CHECK(s[d] != 0, "stride should not be zero");
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(k[d] > 0, "kernel size should be greater than zero, but got ",
                n == 3 ? str("kT: ", k[0], " ") : std::string(), "kH: ", k[1], " kW: ", k[2]);
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(s[d] > 0, "stride should be greater than zero, but got ",
                n == 3 ? str("dT: ", s[0], " ") : std::string(), "dH: ", s[1], " dW: ", s[2]);
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(dl[d] > 0, "dilation should be greater than zero, but got ",
                n == 3 ? str("dilationT: ", dl[0], " ") : std::string(), "dilationH: ", dl[1], " dilationW: ", dl[2]);
  pool::check_pool_input(self, n, name);
  for (int d = 3 - n; d < 3; ++d) EMBER_CHECK(pd[d] >= 0, "pad must be non-negative, but got pad: ", pd[d]);
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(k[d] / 2 >= pd[d], "pad should be at most half of effective kernel size, but got pad=", pd[d],
                ", kernel_size=", k[d], " and dilation=", dl[d]);
  Arr3 in{1, 1, 1}, out{1, 1, 1};
  for (int i = 0; i < n; ++i) in[3 - n + i] = self.size(self.dim() - n + i);
  for (int d = 3 - n; d < 3; ++d) out[d] = pool::pooled_size(in[d], k[d], pd[d], s[d], dl[d], ceil_mode);
  const int64_t ch = self.size(self.dim() - n - 1);
  for (int d = 3 - n; d < 3; ++d)
    if (out[d] < 1)
      fail(ErrorKind::Runtime,
           "Given input size: ", n == 3 ? pool::sizes_x({ch, in[0], in[1], in[2]}) : pool::sizes_x({ch, in[1], in[2]}),
           ". Calculated output size: ",
           n == 3 ? pool::sizes_x({ch, out[0], out[1], out[2]}) : pool::sizes_x({ch, out[1], out[2]}),
           ". Output size is too small");
  // aten's 3-d kernel switches on the input's suggested layout before its dtype dispatch: an unbatched
  // (C, D, H, W) input laid out channels-last (as 2-d images) is neither of its two layouts
  EMBER_CHECK(!(n == 3 && suggest_memory_format(self) == MemoryFormat::ChannelsLast),
              "Unsupported memory format. Supports only ChannelsLast3d, Contiguous");
  const bool win2x2 = n == 2 && k[1] == 2 && k[2] == 2 && s[1] == 2 && s[2] == 2 && pd[1] == 0 && pd[2] == 0 &&
                      dl[1] == 1 && dl[2] == 1;
  const PoolKernels& kern = backend(self).pool;
  if (win2x2 && self.dtype() == ScalarType::Float32 && kern.max2x2_applies(in[1], in[2], out[1], out[2])) {
    pool::Planes p = pool::make_planes(self, n);
    DimVector shape = pool::out_shape(self, n, out);
    Tensor y = empty(shape, self.dtype(), self.device()), ind = empty(shape, ScalarType::Int64, self.device());
    kern.max2x2_planes(p.x.data<float>(), p.planes, in[1], in[2], out[1], out[2], y.data<float>(), ind.data<int64_t>());
    return in_layout_of(self, {y, ind});
  }
  auto bounds = [&](int d, int64_t o) {
    int64_t start = o * s[d] - pd[d];
    const int64_t end = std::min(start + (k[d] - 1) * dl[d] + 1, in[d]);
    if (start < 0) start += (-start + dl[d] - 1) / dl[d] * dl[d];  // first tap inside (no loop: pad may be 2^30)
    return Span{start, end, dl[d]};
  };
  return in_layout_of(self, run_max(self, n, out, name, bounds));
}

std::tuple<Tensor, Tensor> adaptive_max_nd(const Tensor& self, int n, IntArrayRef output_size_arg, const char* name) {
  const IntArrayRef output_size(output_size_arg);  // a 1-element list is not broadcast
  EMBER_CHECK(output_size.size() == static_cast<size_t>(n), name, ": internal error: output_size.size() must be ", n);
  EMBER_CHECK(self.dim() == n + 1 || self.dim() == n + 2, name, "(): Expected ", n + 1, "D or ", n + 2,
              "D tensor, but got: ", shape_str(self.sizes()));
  for (int64_t i = 1; i < self.dim(); ++i)
    EMBER_CHECK(self.size(i) > 0, name,
                "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
                shape_str(self.sizes()), " with dimension ", i, " being empty");
  // aten's meta function allocates the outputs (its negative-size error naming the whole shape; an
  // out-of-memory error for a huge size) before the kernel dispatches on the dtype
  DimVector shape;
  for (int64_t d = 0; d < self.dim() - n; ++d) shape.push_back(self.size(d));
  for (int64_t v : output_size) shape.push_back(v);
  for (int i = 0; i < n; ++i)
    if (output_size[i] < 0)
      fail(ErrorKind::Runtime, "Trying to create tensor with negative dimension ", output_size[i], ": ",
           shape_str(shape));
  if (!is_floating(self.dtype())) {
    (void)empty(shape, self.dtype(), self.device());
    (void)empty(shape, ScalarType::Int64, self.device());
    dtype_not_implemented(name, self.dtype());
  }
  Arr3 in{1, 1, 1}, out{1, 1, 1};
  for (int i = 0; i < n; ++i) {
    in[3 - n + i] = self.size(self.dim() - n + i);
    out[3 - n + i] = output_size[i];
  }
  auto bounds = [&](int d, int64_t o) {
    return Span{pool::adaptive_start(o, in[d], out[d]), pool::adaptive_end(o, in[d], out[d]), 1};
  };
  std::tuple<Tensor, Tensor> r = run_max(self, n, out, name, bounds);
  return n == 2 ? in_layout_of(self, r) : r;  // aten's adaptive 3-d results stay contiguous
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool_nd(self, 2, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d");
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool_nd(self, 3, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d");
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max_nd(self, 2, output_size, "adaptive_max_pool2d");
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max_nd(self, 3, output_size, "adaptive_max_pool3d");
}

namespace {

bool same_sizes(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (int64_t i = 0; i < a.dim(); ++i)
    if (a.size(i) != b.size(i)) return false;
  return true;
}

Tensor max_unpool_nd(const Tensor& self, const Tensor& indices, IntArrayRef output_size_arg, int n, const char* name) {
  const IntArrayRef output_size(output_size_arg);  // a 1-element list is not broadcast
  EMBER_CHECK(indices.dtype() == ScalarType::Int64,
              "elements in indices should be type int64 but got: ", legacy_name(indices.dtype()));
  EMBER_CHECK(output_size.size() == static_cast<size_t>(n), "There should be exactly ", n,
              " elements (height, width) in output_size, but got ", output_size.size(), " elements.");
  EMBER_CHECK(self.dim() == n + 1 || self.dim() == n + 2, "Input to ", name, " should be a ", n + 1, "d or ", n + 2,
              "d Tensor, but got a tensor with ", self.dim(), " dimensions.");
  EMBER_CHECK(same_sizes(self, indices), "Expected shape of indices to be same as that of the input tensor (",
              shape_str(indices.sizes()), ") but got indices tensor with shape: ", shape_str(self.sizes()));
  for (int64_t i = 1; i < self.dim(); ++i)
    EMBER_CHECK(self.size(i) > 0, name, "(): Expected input to have non-zero size for non-batch dimensions, but got ",
                shape_str(self.sizes()), " with dimension ", i, " being empty.");
  Arr3 out{1, 1, 1};
  int64_t plane = 1;
  for (int i = 0; i < n; ++i) {
    out[3 - n + i] = output_size[i];
    plane *= output_size[i];
  }
  DimVector shape = pool::out_shape(self, n, out);
  int64_t planes = 1, per_plane = 1;  // explicit sizes: an empty batch has no -1 to infer
  for (int64_t i = 0; i < self.dim() - n; ++i) planes *= self.size(i);
  for (int64_t i = self.dim() - n; i < self.dim(); ++i) per_plane *= self.size(i);
  Tensor src = reshape(self, {planes, per_plane});
  Tensor idx = reshape(indices, {planes, per_plane});
  Tensor flat = pool::plane_scatter(src, idx, plane, name);
  return reshape(flat, shape);
}

}  // namespace

Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  // (aten's 2-d kernel keeps a channels-last input's layout)
  return in_memory_format(max_unpool_nd(self, indices, output_size, 2, "max_unpool2d"), suggest_memory_format(self));
}

Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride_arg,
                    IntArrayRef padding_arg) {
  const DimVector stride_v = pool::expand_ints(stride_arg, 3), padding_v = pool::expand_ints(padding_arg, 3);
  const IntArrayRef stride(stride_v), padding(padding_v);
  EMBER_CHECK(stride.size() == 3,
              "There should be exactly three elements (depth, height, width) in stride, but got: ", stride.size(),
              " elements.");
  EMBER_CHECK(padding.size() == 3,
              "There should be exactly three elements (depth, height, width) in padding, but got: ", padding.size(),
              " elements.");
  for (int i = 0; i < 3; ++i)
    EMBER_CHECK(stride[i] > 0, "strides should be greater than zero, but got stride: ", shape_str(stride));
  return max_unpool_nd(self, indices, output_size, 3, "max_unpool3d");
}

}  // namespace ember
