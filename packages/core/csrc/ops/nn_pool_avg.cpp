// Average pooling (windowed and adaptive) and their backward kernels. The backward ops are
// ops of their own (avg_pool2d_backward, ...) so double backward is the forward op again.
#include <algorithm>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../core/parallel.h"
#include "checks.h"
#include "nn_pool.h"
#include "ops.h"

namespace ember {

using pool::Arr3;

namespace {

// A window along one dim: the clamped range [lo, hi) and the padded extent (for the divisor).
struct Win {
  int64_t lo, hi, padded;
};

struct AvgGeometry {
  Arr3 in{1, 1, 1}, out{1, 1, 1};
  std::array<std::vector<Win>, 3> wins;
  // Divisor rule: override, else the padded window size, else the clamped window size.
  std::optional<int64_t> divisor_override;
  bool count_include_pad = true;
  // The windows cover every input element exactly once (stride == kernel, no padding or
  // leftover): the backward then writes each element once instead of accumulating.
  bool tiles = false;
  // Window rule: windowed (kernel k, stride s, padding pd) or adaptive. The windows are built only
  // once the result is allocated: 2**31 output positions would otherwise take seconds to describe
  // before an allocation that fails.
  bool adaptive = false;
  Arr3 k{1, 1, 1}, s{1, 1, 1}, pd{0, 0, 0};

  void build_windows() {
    for (int d = 0; d < 3; ++d)
      for (int64_t o = 0; o < out[d]; ++o) {
        if (adaptive) {
          const int64_t lo = pool::adaptive_start(o, in[d], out[d]), hi = pool::adaptive_end(o, in[d], out[d]);
          wins[d].push_back(Win{lo, hi, hi - lo});
        } else {
          const int64_t start = o * s[d] - pd[d], end = std::min(start + k[d], in[d] + pd[d]);
          wins[d].push_back(Win{std::max<int64_t>(start, 0), std::min(end, in[d]), end - start});
        }
      }
  }

  int64_t divisor(const Win& d, const Win& h, const Win& w) const {
    if (divisor_override) return *divisor_override;
    if (count_include_pad) return d.padded * h.padded * w.padded;
    return (d.hi - d.lo) * (h.hi - h.lo) * (w.hi - w.lo);
  }
};

template <class scalar_t>
using avg_acc_t = std::conditional_t<std::is_integral_v<scalar_t>, int64_t, opmath_t<scalar_t>>;

// Sum of n contiguous values; four partial sums for floats so the loop vectorises
// (windows under four elements keep PyTorch's sequential order).
template <class acc_t, class scalar_t>
inline acc_t run_sum(const scalar_t* p, int64_t n) {
  acc_t s0 = 0;
  int64_t i = 0;
  if constexpr (std::is_floating_point_v<acc_t>) {
    acc_t s1 = 0, s2 = 0, s3 = 0;
    for (; i + 4 <= n; i += 4) {
      s0 += static_cast<acc_t>(p[i]);
      s1 += static_cast<acc_t>(p[i + 1]);
      s2 += static_cast<acc_t>(p[i + 2]);
      s3 += static_cast<acc_t>(p[i + 3]);
    }
    s0 = (s0 + s1) + (s2 + s3);
  }
  for (; i < n; ++i) s0 += static_cast<acc_t>(p[i]);
  return s0;
}

// backward=false: y[o] = sum(x[window]) / divisor. backward=true: x[window] += y[o] / divisor
// (x is then the zero-initialised grad_input, y the grad_output).
template <class scalar_t, bool backward>
void avg_kernel(const AvgGeometry& g, int64_t planes, scalar_t* xp, scalar_t* yp) {
  using acc_t = avg_acc_t<scalar_t>;
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  GilRelease nogil;  // also when parallel_for runs inline (one thread, small input)
  parallel_for(0, planes, pool::plane_grain(in_plane + out_plane), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      scalar_t* xb = xp + b * in_plane;
      scalar_t* yb = yp + b * out_plane;
      for (int64_t od = 0; od < g.out[0]; ++od) {
        const Win& wd = g.wins[0][od];
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          const Win& wh = g.wins[1][oh];
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            const Win& ww = g.wins[2][ow];
            const int64_t o = (od * g.out[1] + oh) * g.out[2] + ow;
            const bool empty = wd.lo >= wd.hi || wh.lo >= wh.hi || ww.lo >= ww.hi;
            const int64_t div = g.divisor(wd, wh, ww);
            if constexpr (!backward) {
              if (empty) {
                yb[o] = scalar_t(0);
                continue;
              }
              acc_t sum = 0;
              const bool full_rows = ww.lo == 0 && ww.hi == g.in[2];  // the window's rows are one run
              for (int64_t id = wd.lo; id < wd.hi; ++id) {
                if (full_rows) {
                  sum += run_sum<acc_t>(xb + (id * g.in[1] + wh.lo) * g.in[2], (wh.hi - wh.lo) * g.in[2]);
                  continue;
                }
                for (int64_t ih = wh.lo; ih < wh.hi; ++ih)
                  sum += run_sum<acc_t>(xb + (id * g.in[1] + ih) * g.in[2] + ww.lo, ww.hi - ww.lo);
              }
              yb[o] = static_cast<scalar_t>(sum / static_cast<acc_t>(div));
            } else {
              if (empty) continue;
              const acc_t v = static_cast<acc_t>(yb[o]) / static_cast<acc_t>(div);
              for (int64_t id = wd.lo; id < wd.hi; ++id)
                for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
                  scalar_t* row = xb + (id * g.in[1] + ih) * g.in[2];
                  if (g.tiles) {
                    for (int64_t iw = ww.lo; iw < ww.hi; ++iw) row[iw] = static_cast<scalar_t>(v);
                  } else {
                    for (int64_t iw = ww.lo; iw < ww.hi; ++iw)
                      row[iw] = static_cast<scalar_t>(static_cast<acc_t>(row[iw]) + v);
                  }
                }
            }
          }
        }
      }
    }
  });
}

// 2-D forward of a floating type: per output row, the column sums of its window rows
// (vectorised along the input row), then each output's short horizontal run of those sums.
// Nine scalar adds per output of a 3x3 window become three.
template <class scalar_t>
void avg2d_forward_separable(const AvgGeometry& g, int64_t planes, const scalar_t* xp, scalar_t* yp) {
  using acc_t = avg_acc_t<scalar_t>;
  const int64_t ih_n = g.in[1], iw_n = g.in[2], oh_n = g.out[1], ow_n = g.out[2];
  const Win& wd = g.wins[0][0];
  GilRelease nogil;
  parallel_for(0, planes, pool::plane_grain(ih_n * iw_n + oh_n * ow_n), [&](int64_t b0, int64_t b1) {
    std::vector<acc_t> col(static_cast<size_t>(iw_n));
    for (int64_t b = b0; b < b1; ++b) {
      const scalar_t* xb = xp + b * ih_n * iw_n;
      scalar_t* yb = yp + b * oh_n * ow_n;
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        const Win& wh = g.wins[1][oh];
        scalar_t* yr = yb + oh * ow_n;
        std::fill(col.begin(), col.end(), acc_t(0));
        for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
          const scalar_t* xr = xb + ih * iw_n;
          acc_t* c = col.data();
#pragma omp simd
          for (int64_t iw = 0; iw < iw_n; ++iw) c[iw] += static_cast<acc_t>(xr[iw]);
        }
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          const Win& ww = g.wins[2][ow];
          if (wh.lo >= wh.hi || ww.lo >= ww.hi) {
            yr[ow] = scalar_t(0);
            continue;
          }
          acc_t sum = 0;
          for (int64_t iw = ww.lo; iw < ww.hi; ++iw) sum += col[iw];
          yr[ow] = static_cast<scalar_t>(sum / static_cast<acc_t>(g.divisor(wd, wh, ww)));
        }
      }
    }
  });
}

AvgGeometry avg_geometry(const Tensor& self, int n, IntArrayRef kernel_size, IntArrayRef stride,
                         IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                         std::optional<int64_t> divisor_override, const char* name) {
  const Arr3 k = pool::expand_arg(kernel_size, n, 1, name, "kernel_size");
  const Arr3 s = pool::expand_arg(stride, n, 1, name, "stride", &k);
  const Arr3 pd = pool::expand_arg(padding, n, 0, name, "padding");
  // PyTorch's 2-d form reads input.size(-3) first, an IndexError for 1-d / 2-d input (its
  // backward checks the divisor before).
  const bool backward = std::string_view(name).find("backward") != std::string_view::npos;
  auto read_planes = [&] {
    EMBER_CHECK_INDEX(n != 2 || self.dim() >= 3, "Dimension out of range (expected to be in range of [",
                      -std::max<int64_t>(self.dim(), 1), ", ", std::max<int64_t>(self.dim(), 1) - 1, "], but got -3)");
  };
  if (!backward) read_planes();
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  if (backward) read_planes();
  for (int d = 3 - n; d < 3; ++d) EMBER_CHECK(s[d] != 0, "stride should not be zero");
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(k[d] > 0, "kernel size should be greater than zero, but got ",
                n == 3 ? str("kT: ", k[0], " ") : std::string(), "kH: ", k[1], " kW: ", k[2]);
  for (int d = 3 - n; d < 3; ++d)
    EMBER_CHECK(s[d] > 0, "stride should be greater than zero, but got ",
                n == 3 ? str("dT: ", s[0], " ") : std::string(), "dH: ", s[1], " dW: ", s[2]);
  pool::check_pool_input(self, n, name);
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
      fail(ErrorKind::Runtime, "Given input size: ",
           n == 3 ? pool::sizes_x({ch, in[0], in[1], in[2]}) : pool::sizes_x({ch, in[1], in[2]}),
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
  // aten allocates the output ("Stride calculation overflowed") before its dtype dispatch, which
  // the 2-d kernel skips for an empty output.
  const DimVector out_shape = pool::out_shape(self, n, g.out);
  (void)contiguous_strides(out_shape);
  if (!is_floating(self.dtype()) && (n == 3 || compute_numel(out_shape) > 0)) {
    (void)empty(out_shape, self.dtype());  // aten's allocation (its out-of-memory error) comes first
    dtype_not_implemented(name, self.dtype());
  }
  g.tiles = true;
  for (int d = 0; d < 3; ++d) g.tiles = g.tiles && g.out[d] > 0 && g.in[d] % g.out[d] == 0;
  g.adaptive = true;
  return g;
}

Tensor avg_forward(const Tensor& self, int n, AvgGeometry g, const char* name) {
  // aten's avg_pool kernels dispatch over the float types and Long only, empty output or not
  if (!g.adaptive && is_integral(self.dtype(), true) && self.dtype() != ScalarType::Int64)
    dtype_not_implemented(n == 3 ? "avg_pool3d_out_frame" : "avg_pool2d", self.dtype());
  Tensor y = empty(pool::out_shape(self, n, g.out), self.dtype());
  if (y.numel() == 0) return y;
  pool::Planes p = pool::make_planes(self, n);
  g.build_windows();
  EMBER_DISPATCH_NO_BOOL(self.dtype(), name, [&] {
    // windows of width one gain nothing from the column pass (and adaptive 1x1 has its own path)
    const bool separable = std::is_floating_point_v<avg_acc_t<scalar_t>> && g.in[0] == 1 && g.out[0] == 1 &&
                           g.out[2] < g.in[2];
    if (separable) avg2d_forward_separable<scalar_t>(g, p.planes, p.x.data<scalar_t>(), y.data<scalar_t>());
    else avg_kernel<scalar_t, false>(g, p.planes, p.x.data<scalar_t>(), y.data<scalar_t>());
  });
  return y;
}

Tensor avg_backward(const Tensor& grad_output, const Tensor& self, int n, AvgGeometry g, const char* name) {
  DimVector expect = pool::out_shape(self, n, g.out);
  // aten checks the channel and pooled dims (check_dim_size), not the batch dim.
  const int64_t nd = self.dim();
  for (int64_t d = nd - n - 1; d < nd; ++d) check_dim_size(grad_output, nd, d, expect[d]);
  // aten never checks the batch (it reads past a smaller gradient): torch_known_wrong.py
  // "pool-backward-batch-mismatch".
  EMBER_CHECK(std::equal(expect.begin(), expect.end(), grad_output.sizes().begin()),
              name, ": grad_output has shape ", shape_str(grad_output.sizes()), ", expected ", shape_str(expect));
  // aten's kernels take int64 and floats (3-d: float32 / float64 only); the 3-d backward
  // dispatches on the input's dtype before it compares the gradient's, the 2-d one after.
  const ScalarType dt = self.dtype();
  const bool kernel_dtype = dt == ScalarType::Int64 || (n == 2 ? is_floating(dt)
                                                               : dt == ScalarType::Float32 || dt == ScalarType::Float64);
  if (n == 3 && !g.adaptive && !kernel_dtype) dtype_not_implemented("avg_pool3d_backward_out_frame", self.dtype());
  EMBER_CHECK(grad_output.dtype() == self.dtype(), name, ": expected grad_output of dtype ",
              legacy_name(self.dtype()), " but got ", legacy_name(grad_output.dtype()));
  if (n == 2 && !g.adaptive && !kernel_dtype) dtype_not_implemented(name, self.dtype());
  const bool write_once = g.tiles && grad_output.numel() > 0;
  Tensor gx = write_once ? empty(self.sizes(), self.dtype()) : zeros(self.sizes(), self.dtype(), std::nullopt);
  if (gx.numel() == 0 || grad_output.numel() == 0) return gx;
  Tensor go = contiguous(grad_output, MemoryFormat::Contiguous);
  g.build_windows();
  int64_t planes = 1;
  for (int64_t i = 0; i < self.dim() - n; ++i) planes *= self.size(i);
  EMBER_DISPATCH_NO_BOOL(self.dtype(), name, [&] {
    avg_kernel<scalar_t, true>(g, planes, gx.data<scalar_t>(), go.data<scalar_t>());
  });
  return gx;
}

}  // namespace

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_forward(self, 2,
                     avg_geometry(self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                  divisor_override, "avg_pool2d"),
                     "avg_pool2d");
}

Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_forward(self, 3,
                     avg_geometry(self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                  divisor_override, "avg_pool3d"),
                     "avg_pool3d");
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_backward(grad_output, self, 2,
                      avg_geometry(self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                   divisor_override, "avg_pool2d_backward"),
                      "avg_pool2d_backward");
}

Tensor avg_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
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
    fail(ErrorKind::Runtime, name, ": elements of output_size must be greater than or equal to 0 but received {",
         got, "}");
  }
  if (ones) {
    const int64_t dims3[] = {-1, -2, -3};
    return mean(self, IntArrayRef(dims3, static_cast<size_t>(n)), true, std::nullopt);
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
  // aten checks the dtypes next, then pools: nothing to do for an empty input.
  EMBER_CHECK(grad_output.dtype() == self.dtype(), name, "_out_cpu_template: Expected dtype ",
              c_type_name(self.dtype()), " for `grad_output` but got dtype ", c_type_name(grad_output.dtype()));
  // A gradient of another batch or channel count: torch_known_wrong
  // "pool-backward-batch-mismatch", also when the input is empty.
  for (int64_t d = 0; d < self.dim() - n; ++d)
    EMBER_CHECK(grad_output.size(d) == self.size(d), name, ": grad_output has size ", grad_output.size(d),
                " in dim ", d, ", the input ", self.size(d));
  if (self.numel() == 0) return zeros(self.sizes(), self.dtype(), std::nullopt);
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
