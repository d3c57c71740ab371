// Average pooling (windowed and adaptive) and their backward kernels. The backward ops are
// ops of their own (avg_pool2d_backward, ...) so double backward is the forward op again.
#include <algorithm>

#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/nn/nn_pool.h"

namespace ember {

using pool::Arr3;
using pool::AvgGeometry;

namespace {

AvgGeometry avg_geometry(const Tensor& self, int n, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                         bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                         const char* name) {
  const Arr3 k = pool::expand_arg(kernel_size, n, 1, name, "kernel_size");
  const Arr3 s = pool::expand_arg(stride, n, 1, name, "stride", &k);
  const Arr3 pd = pool::expand_arg(padding, n, 0, name, "padding");
  // PyTorch's 2-d form checks the divisor, then reads input.size(-3) (an IndexError for 1-d / 2-d
  // input).
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  EMBER_CHECK_INDEX(n != 2 || self.dim() >= 3, "Dimension out of range (expected to be in range of [",
                    -std::max<int64_t>(self.dim(), 1), ", ", std::max<int64_t>(self.dim(), 1) - 1, "], but got -3)");
  for (int d = 3 - n; d < 3; ++d) EMBER_CHECK(s[d] != 0, "stride should not be zero");
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(k[d] > 0, "kernel size should be greater than zero, but got ",
                n == 3 ? str("kT: ", k[0], " ") : std::string(), "kH: ", k[1], " kW: ", k[2]);
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(s[d] > 0, "stride should be greater than zero, but got ",
                n == 3 ? str("dT: ", s[0], " ") : std::string(), "dH: ", s[1], " dW: ", s[2]);
  pool::check_pool_input(self, n, name);
  // aten's pool3d_shape_check for average pooling: the unpadded input must hold a window.
  EMBER_CHECK(n != 3 || (self.size(-3) >= k[0] && self.size(-2) >= k[1] && self.size(-1) >= k[2]),
              "input image (T: ", self.size(-3), " H: ", self.size(-2), " W: ", self.size(-1),
              ") smaller than kernel size (kT: ", k[0], " kH: ", k[1], " kW: ", k[2], ")");
  for (int d = 3 - n; d < 3; ++d) EMBER_CHECK(pd[d] >= 0, "pad must be non-negative, but got pad: ", pd[d]);
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(k[d] / 2 >= pd[d], "pad should be at most half of effective kernel size, but got pad=", pd[d],
                ", kernel_size=", k[d], " and dilation=1");
  AvgGeometry g;
  g.divisor_override = divisor_override;
  g.count_include_pad = count_include_pad;
  for (int i = 0; i < n; ++i) g.in[3 - n + i] = self.size(self.dim() - n + i);
  for (int d = 3 - n; d < 3; ++d) g.out[d] = pool::pooled_size(g.in[d], k[d], pd[d], s[d], 1, ceil_mode);
  const int64_t ch = self.size(self.dim() - n - 1);
  const Arr3& in = g.in;
  const Arr3& out = g.out;
  for (int d = 3 - n; d < 3; ++d)
    if (out[d] < 1)
      fail(ErrorKind::Runtime,
           "Given input size: ", n == 3 ? pool::sizes_x({ch, in[0], in[1], in[2]}) : pool::sizes_x({ch, in[1], in[2]}),
           ". Calculated output size: ",
           n == 3 ? pool::sizes_x({ch, out[0], out[1], out[2]}) : pool::sizes_x({ch, out[1], out[2]}),
           ". Output size is too small");
  g.tiles = true;
  for (int d = 3 - n; d < 3; ++d) g.tiles = g.tiles && s[d] == k[d] && pd[d] == 0 && g.out[d] * k[d] == g.in[d];
  g.k = k;
  g.s = s;
  g.pd = pd;
  return g;
}

AvgGeometry adaptive_geometry(const Tensor& self, int n, IntArrayRef output_size_arg, const char* name) {
  const IntArrayRef output_size(output_size_arg);  // a 1-element list is not broadcast
  EMBER_CHECK(output_size.size() == static_cast<size_t>(n), name, ": output_size must be ", n);
  auto check_rank = [&] {
    EMBER_CHECK(self.dim() == n + 1 || self.dim() == n + 2, name, "(): Expected ", n + 1, "D or ", n + 2,
                "D tensor, but got ", shape_str(self.sizes()));
  };
  // PyTorch's 2-d kernel checks the rank, then non-empty spatial dims; the 3-d one every
  // non-batch dim first, then the rank.
  if (n == 2) check_rank();
  for (int64_t i = n == 2 ? std::max<int64_t>(self.dim() - 2, 0) : 1; i < self.dim(); ++i)
    EMBER_CHECK(self.size(i) > 0, name,
                "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
                shape_str(self.sizes()), " with dimension ", i, " being empty");
  if (n == 3) check_rank();
  AvgGeometry g;
  g.count_include_pad = false;  // divisor: the window's size
  for (int i = 0; i < n; ++i) {
    EMBER_CHECK(output_size[i] >= 0, "Trying to create tensor with negative dimension ", output_size[i], ": ",
                shape_str(output_size));
    g.in[3 - n + i] = self.size(self.dim() - n + i);
    g.out[3 - n + i] = output_size[i];
  }
  // aten resizes the output (c10's numel: "numel: integer multiplication overflow", then "Stride
  // calculation overflowed") before its dtype dispatch, which the 2-d kernel skips for an empty output.
  const DimVector out_shape = pool::out_shape(self, n, g.out);
  (void)compute_numel(out_shape);
  (void)contiguous_strides(out_shape);
  if (!is_floating(self.dtype()) && (n == 3 || compute_numel(out_shape) > 0)) {
    (void)empty(out_shape, self.dtype(), self.device());  // aten's allocation (its out-of-memory error) comes first
    dtype_not_implemented(n == 3 ? "adaptive_avg_pool3d_cpu" : name, self.dtype());
  }
  g.tiles = true;
  for (int d = 0; d < 3; ++d) g.tiles = g.tiles && g.out[d] > 0 && g.in[d] % g.out[d] == 0;
  g.adaptive = true;
  // Evenly spaced windows (in % out == 0) are the windowed rule with kernel = stride = in / out;
  // k = 0 marks the uneven ones.
  for (int d = 0; d < 3; ++d) {
    const bool even = g.out[d] > 0 && g.in[d] % g.out[d] == 0;
    g.k[d] = even ? g.in[d] / g.out[d] : 0;
    g.s[d] = even ? g.k[d] : 1;
  }
  return g;
}

Tensor avg_forward(const Tensor& self, int n, AvgGeometry g, const char* name) {
  // aten's avg_pool kernels dispatch over the float types and Long only (3-d: float32, float64
  // and Long; no complex), empty output or not
  const ScalarType dt = self.dtype();
  const bool half = dt == ScalarType::Float16 || dt == ScalarType::BFloat16;
  if (!g.adaptive && ((is_integral(dt, true) && dt != ScalarType::Int64) || (n == 3 && half) || is_complex(dt)))
    dtype_not_implemented(n == 3 ? "avg_pool3d_out_frame" : "avg_pool2d", dt);
  Tensor y = empty(pool::out_shape(self, n, g.out), self.dtype(), self.device());
  // aten's 2-d average pooling kernels keep a channels-last input's layout (the 3-d ones do not)
  const MemoryFormat mf = n == 2 ? suggest_memory_format(self) : MemoryFormat::Contiguous;
  if (y.numel() == 0) return in_memory_format(y, mf);
  pool::Planes p = pool::make_planes(self, n);
  g.build_windows();
  g.sum_in_input_type = g.adaptive && n == 3;
  backend(self).pool.avg_forward(g, self.dtype(), name, p.planes, p.x.raw(), y.raw());
  return in_memory_format(y, mf);
}

Tensor avg_backward(const Tensor& grad_output, const Tensor& self, int n, AvgGeometry g, const char* name) {
  DimVector expect = pool::out_shape(self, n, g.out);
  // aten checks the channel and pooled dims (check_dim_size), not the batch dim.
  const int64_t nd = self.dim();
  for (int64_t d = nd - n - 1; d < nd; ++d) check_dim_size(grad_output, nd, d, expect[d]);
  // aten never checks the batch (it reads past a smaller gradient): torch_known_wrong.py
  // "pool-backward-batch-mismatch".
  EMBER_CHECK(std::equal(expect.begin(), expect.end(), grad_output.sizes().begin()), name, ": grad_output has shape ",
              shape_str(grad_output.sizes()), ", expected ", shape_str(expect));
  // aten's kernels take int64 and floats (3-d: float32 / float64 only); the 3-d backward
  // dispatches on the input's dtype before it compares the gradient's, the 2-d one after.
  const ScalarType dt = self.dtype();
  const bool kernel_dtype =
      dt == ScalarType::Int64 || (n == 2 ? is_floating(dt) : dt == ScalarType::Float32 || dt == ScalarType::Float64);
  if (n == 3 && !g.adaptive && !kernel_dtype) dtype_not_implemented("avg_pool3d_backward_out_frame", self.dtype());
  EMBER_CHECK(grad_output.dtype() == self.dtype(), name, ": expected grad_output of dtype ", legacy_name(self.dtype()),
              " but got ", legacy_name(grad_output.dtype()));
  if (n == 2 && !g.adaptive && !kernel_dtype) dtype_not_implemented(name, self.dtype());
  const bool write_once = g.tiles && grad_output.numel() > 0;
  Tensor gx =
      write_once ? empty(self.sizes(), self.dtype(), self.device()) : zeros(self.sizes(), self.dtype(), self.device());
  if (gx.numel() == 0 || grad_output.numel() == 0) return gx;
  Tensor go = contiguous(grad_output, MemoryFormat::Contiguous);
  g.build_windows();
  int64_t planes = 1;
  for (int64_t i = 0; i < self.dim() - n; ++i) planes *= self.size(i);
  backend(self).pool.avg_backward(g, self.dtype(), name, planes, gx.raw(), go.raw());
  return gx;
}

}  // namespace

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_forward(
      self, 2,
      avg_geometry(self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, "avg_pool2d"),
      "avg_pool2d");
}

Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_forward(
      self, 3,
      avg_geometry(self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, "avg_pool3d"),
      "avg_pool3d");
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_backward(grad_output, self, 2,
                      avg_geometry(self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                   divisor_override, "avg_pool2d_backward"),
                      "avg_pool2d_backward");
}

Tensor avg_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_backward(grad_output, self, 3,
                      avg_geometry(self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                   divisor_override, "avg_pool3d_backward"),
                      "avg_pool3d_backward");
}

namespace {
// aten's composite adaptive_avg_pool{2,3}d: output_size checked, and an all-ones output is a
// mean over the pooled dims (no rank or non-empty checks), else the pooling kernel.
Tensor adaptive_avg_nd(const Tensor& self, int n, IntArrayRef output_size, const char* name) {
  EMBER_CHECK(output_size.size() == static_cast<size_t>(n), name, ": output_size must be ", n);
  bool ones = true, nonneg = true;
  for (int64_t v : output_size) {
    ones = ones && v == 1;
    nonneg = nonneg && v >= 0;
  }
  if (!nonneg) {
    std::string got;
    for (size_t i = 0; i < output_size.size(); ++i)
      got += (i ? (i == 1 ? ", " : ",") : "") + std::to_string(output_size[i]);
    fail(ErrorKind::Runtime, name, ": elements of output_size must be greater than or equal to 0 but received {", got,
         "}");
  }
  if (ones) {
    const int64_t dims3[] = {-1, -2, -3};
    // (aten's mean keeps the input's dim order: a channels-last result for a channels-last input)
    return in_memory_format(mean(self, IntArrayRef(dims3, static_cast<size_t>(n)), true, std::nullopt),
                            suggest_memory_format(self));
  }
  return avg_forward(self, n, adaptive_geometry(self, n, output_size, name), name);
}
}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_nd(self, 2, output_size, "adaptive_avg_pool2d");
}

Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_nd(self, 3, output_size, "adaptive_avg_pool3d");
}

namespace {
// The adaptive backward recovers output_size from grad_output's trailing dims.
Tensor adaptive_avg_backward(const Tensor& grad_output, const Tensor& self, int n, const char* name) {
  for (int64_t i = 1; i < grad_output.dim(); ++i)
    EMBER_CHECK(grad_output.size(i) > 0, name,
                "(): Expected grad_output to have non-zero size for non-batch dimensions, but grad_output has sizes ",
                shape_str(grad_output.sizes()), " with dimension ", i, " being empty");
  // aten's 2-d backward checks the gradient's rank; the 3-d one wants the gradient of the
  // input's rank, then reads the input's last four sizes (an IndexError when missing).
  if (n == 2) {
    EMBER_CHECK(grad_output.dim() == 3 || grad_output.dim() == 4, name,
                "_out_cpu_template: Expected 3D or 4D tensor, but got ", shape_str(grad_output.sizes()));
  } else {
    EMBER_CHECK(grad_output.dim() == self.dim(), name, "_out_cpu_template: Expected dimensions ", self.dim(),
                " for `gradOutput_` but got dimensions ", grad_output.dim());
    for (int64_t d = -4; d < 0; ++d) (void)self.size(d);
  }
  EMBER_CHECK(grad_output.dim() == self.dim(), name, ": grad_output and self must have the same rank");
  // aten checks the dtypes next, then pools: nothing to do for an empty input. The 3-d backward
  // dispatches on the input's dtype (empty or not), then reads the gradient as that type.
  if (n == 3) {
    if (!is_floating(self.dtype())) dtype_not_implemented("adaptive_avg_pool3d_backward_cpu", self.dtype());
    EMBER_CHECK(grad_output.dtype() == self.dtype(), "expected scalar type ", legacy_name(self.dtype()), " but found ",
                legacy_name(grad_output.dtype()));
  }
  EMBER_CHECK(grad_output.dtype() == self.dtype(), name, "_out_cpu_template: Expected dtype ",
              c_type_name(self.dtype()), " for `grad_output` but got dtype ", c_type_name(grad_output.dtype()));
  // the 2-d backward's dtype dispatch: an empty input too
  if (n == 2 && !is_floating(self.dtype())) dtype_not_implemented(name, self.dtype());
  // A gradient of another batch or channel count: torch_known_wrong
  // "pool-backward-batch-mismatch", also when the input is empty.
  for (int64_t d = 0; d < self.dim() - n; ++d)
    EMBER_CHECK(grad_output.size(d) == self.size(d), name, ": grad_output has size ", grad_output.size(d), " in dim ",
                d, ", the input ", self.size(d));
  if (self.numel() == 0) return zeros(self.sizes(), self.dtype(), self.device());
  DimVector osz;
  for (int i = 0; i < n; ++i) osz.push_back(grad_output.size(grad_output.dim() - n + i));
  return avg_backward(grad_output, self, n, adaptive_geometry(self, n, osz, name), name);
}
}  // namespace

Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_backward(grad_output, self, 2, "adaptive_avg_pool2d_backward");
}

Tensor _adaptive_avg_pool3d_backward(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_backward(grad_output, self, 3, "adaptive_avg_pool3d_backward");
}

}  // namespace ember
