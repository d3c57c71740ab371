// The upsampling ops (nearest, nearest-exact, linear/bilinear/trilinear, bicubic) and their
// backward: checks, geometry, allocation; the interpolation is the backend's
// (kernels/cpu/pool/upsample.cpp).
#include <algorithm>
#include <optional>
#include <string>

#include "core/parallel.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/nn/nn_pool.h"

namespace ember {

using pool::Arr3;
using upsample::ClForm;
using upsample::Geometry;
using upsample::Mode;
using upsample::u8_interp;

namespace {

// aten's pick of its channels-last bilinear kernel for this input (see ClForm).
ClForm bilinear_cl_form(const Geometry& g, const Tensor& self) {
  ClForm f;
  if (g.mode != Mode::Linear || g.n != 2) return f;
  const int64_t C = self.size(1);
  bool cl_input = C > 3;
  if (cl_input) {  // channels-last contiguous: C innermost, then W, then H, then N
    int64_t expect = 1;
    for (int d : {1, 3, 2, 0}) {
      if (self.size(d) != 1 && self.strides()[d] != expect) cl_input = false;
      expect *= self.size(d);
    }
  }
  f.on = cl_input || g.out[1] + g.out[2] <= 128 || (get_num_threads() == 1 && C == 3);
  const int64_t lanes = self.dtype() == ScalarType::Float64 ? 4 : self.dtype() == ScalarType::Float32 ? 8 : 16;
  f.channels = std::max<int64_t>(C, 1);
  f.vec_channels = C - C % lanes;
  return f;
}

// The backend's pass over the planes of x into y (see UpsampleKernels).
void dispatch(const Tensor& on, const Geometry& g, ScalarType dt, int64_t planes, char* x, char* y, bool backward,
              const ClForm& cl = ClForm()) {
  backend(on).upsample.upsample(g, dt, planes, x, y, backward, cl);
}

// aten computes the interpolation indices (a dtype dispatch) once the output is allocated, before
// it looks at the batch: an unsupported dtype fails for an empty input too.
void check_dtype(Mode mode, int n, ScalarType dt) {
  const bool nearest = mode == Mode::Nearest || mode == Mode::NearestExact;
  if (is_floating(dt) || (nearest && dt == ScalarType::UInt8)) return;
  if (dt == ScalarType::UInt8 && u8_interp(mode, n)) return;
  const char* what = nearest ? "nearest" : mode == Mode::Cubic ? "cubic" : "linear";
  fail(ErrorKind::NotImplemented, "\"compute_indices_weights_", what, "\" not implemented for '", legacy_name(dt), "'");
}

std::string dims_text(int n, const Arr3& v) {
  const char* names[3] = {"D", "H", "W"};
  std::string s;
  for (int d = 3 - n; d < 3; ++d) s += str(d > 3 - n ? ", " : "", names[d], ": ", v[d]);
  return s;
}

Geometry geometry(Mode mode, int n, IntArrayRef input_size_arg, IntArrayRef output_size_arg, bool align_corners,
                  std::array<std::optional<double>, 3> scales) {
  // Lengths as given: a 1-element list is not broadcast (only a bare int is, by the parser).
  const IntArrayRef input_size(input_size_arg), output_size(output_size_arg);
  EMBER_CHECK(output_size.size() == static_cast<size_t>(n), "It is expected output_size equals to ", n,
              ", but got size ", output_size.size());
  EMBER_CHECK(input_size.size() == static_cast<size_t>(n + 2), "It is expected input_size equals to ", n + 2,
              ", but got size ", input_size.size());
  Geometry g;
  g.mode = mode;
  g.n = n;
  g.align_corners = align_corners;
  g.scales = scales;
  bool ok = true;
  for (int i = 0; i < n; ++i) {
    g.in[3 - n + i] = input_size[2 + i];
    g.out[3 - n + i] = output_size[i];
    ok = ok && input_size[2 + i] > 0 && output_size[i] > 0;
  }
  EMBER_CHECK(ok, "Input and output sizes should be greater than 0, but got input (", dims_text(n, g.in), ") output (",
              dims_text(n, g.out), ")");
  return g;
}

// aten's upsample schemas take SymInt[] sizes: a value below -2**62 is a symbolic int's tag
// there, refused when the kernel is called, before any check of the op's own.
void check_concrete(IntArrayRef sizes) {
  for (int64_t v : sizes)
    EMBER_CHECK(v >= -(int64_t(1) << 62), "SymIntArrayRef expected to contain only concrete integers");
}

Tensor upsample_fwd(const Tensor& self, Mode mode, int n, IntArrayRef output_size, bool align_corners,
                    std::array<std::optional<double>, 3> scales) {
  check_concrete(output_size);
  bool ok = self.dim() == n + 2;
  for (int64_t i = 1; ok && i < self.dim(); ++i) ok = self.size(i) != 0;
  EMBER_CHECK(ok, "Non-empty ", n + 2, "D data tensor expected but got a tensor with sizes ", shape_str(self.sizes()));
  Geometry g = geometry(mode, n, self.sizes(), output_size, align_corners, scales);
  DimVector shape{self.size(0), self.size(1)};
  for (int d = 3 - n; d < 3; ++d) shape.push_back(g.out[d]);
  Tensor x = contiguous(self, MemoryFormat::Contiguous);
  Tensor y = empty(shape, self.dtype(), self.device());
  check_dtype(mode, n, self.dtype());  // after aten's output allocation, before the empty return
  // aten's kernels keep a channels-last input's layout
  const MemoryFormat mf = suggest_memory_format(self);
  if (y.numel() == 0) return in_memory_format(y, mf);
  dispatch(x, g, self.dtype(), self.size(0) * self.size(1), x.raw(), y.raw(), false, bilinear_cl_form(g, self));
  return in_memory_format(y, mf);
}

Tensor upsample_bwd(const Tensor& grad_output, Mode mode, int n, IntArrayRef output_size, IntArrayRef input_size,
                    bool align_corners, std::array<std::optional<double>, 3> scales) {
  check_concrete(output_size);
  check_concrete(input_size);
  Geometry g = geometry(mode, n, input_size, output_size, align_corners, scales);
  const DimVector in_sizes = to_vec(input_size);
  // aten's 1-d backwards use check_dim_size (IndexError for a grad without the dim); 2-d and 3-d
  // check the rank first.
  for (int i = 0; n == 1 && i < n + 2; ++i)
    check_dim_size(grad_output, n + 2, i, i < 2 ? in_sizes[i] : g.out[3 - n + i - 2]);
  EMBER_CHECK(grad_output.dim() == n + 2, "Expected grad_output to be a tensor of dimension ", n + 2,
              " but got: dimension ", grad_output.dim());
  for (int i = 0; i < n + 2; ++i) {
    const int64_t want = i < 2 ? in_sizes[i] : g.out[3 - n + i - 2];
    EMBER_CHECK(grad_output.size(i) == want, "Expected grad_output to have the same shape as output; output.size(", i,
                ") = ", want, " but got grad_output.size(", i, ") = ", grad_output.size(i));
  }
  if (mode == Mode::Cubic && g.in == g.out) {
    // aten's bicubic backward copies the gradient where the sizes agree, whatever the scales and
    // dtype (its forward interpolates: 0 * inf is NaN there)
    Tensor gx = empty(in_sizes, grad_output.dtype(), grad_output.device());
    return copy_(gx, grad_output, false);
  }
  // aten's backward kernels take float types only, an empty gradient too (after the shape checks and the
  // allocation of the input's gradient: its out-of-memory error first)
  if (!is_floating(grad_output.dtype())) {
    (void)empty(in_sizes, grad_output.dtype(), grad_output.device());
    fail(ErrorKind::NotImplemented, "\"", upsample::mode_name(mode, n), "_backward\" not implemented for '",
         legacy_name(grad_output.dtype()), "'");
  }
  Tensor go = contiguous(grad_output, MemoryFormat::Contiguous);
  Tensor gx = zeros(in_sizes, grad_output.dtype(), grad_output.device());
  if (gx.numel() == 0 || go.numel() == 0) return gx;
  dispatch(gx, g, grad_output.dtype(), in_sizes[0] * in_sizes[1], gx.raw(), go.raw(), true);
  return gx;
}

using S = std::optional<double>;
constexpr std::nullopt_t none = std::nullopt;

}  // namespace

Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size, S scales) {
  return upsample_fwd(self, Mode::Nearest, 1, output_size, false, {none, none, scales});
}
Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size, S scales_h, S scales_w) {
  return upsample_fwd(self, Mode::Nearest, 2, output_size, false, {none, scales_h, scales_w});
}
Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size, S scales_d, S scales_h, S scales_w) {
  return upsample_fwd(self, Mode::Nearest, 3, output_size, false, {scales_d, scales_h, scales_w});
}
Tensor _upsample_nearest_exact1d(const Tensor& self, IntArrayRef output_size, S scales) {
  return upsample_fwd(self, Mode::NearestExact, 1, output_size, false, {none, none, scales});
}
Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef output_size, S scales_h, S scales_w) {
  return upsample_fwd(self, Mode::NearestExact, 2, output_size, false, {none, scales_h, scales_w});
}
Tensor _upsample_nearest_exact3d(const Tensor& self, IntArrayRef output_size, S scales_d, S scales_h, S scales_w) {
  return upsample_fwd(self, Mode::NearestExact, 3, output_size, false, {scales_d, scales_h, scales_w});
}
Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners, S scales) {
  return upsample_fwd(self, Mode::Linear, 1, output_size, align_corners, {none, none, scales});
}
Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners, S scales_h, S scales_w) {
  return upsample_fwd(self, Mode::Linear, 2, output_size, align_corners, {none, scales_h, scales_w});
}
Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool align_corners, S scales_h, S scales_w) {
  return upsample_fwd(self, Mode::Cubic, 2, output_size, align_corners, {none, scales_h, scales_w});
}
Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners, S scales_d, S scales_h,
                            S scales_w) {
  return upsample_fwd(self, Mode::Linear, 3, output_size, align_corners, {scales_d, scales_h, scales_w});
}

Tensor upsample_nearest1d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                   S scales) {
  return upsample_bwd(grad_output, Mode::Nearest, 1, output_size, input_size, false, {none, none, scales});
}
Tensor upsample_nearest2d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                   S scales_h, S scales_w) {
  return upsample_bwd(grad_output, Mode::Nearest, 2, output_size, input_size, false, {none, scales_h, scales_w});
}
Tensor upsample_nearest3d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                   S scales_d, S scales_h, S scales_w) {
  return upsample_bwd(grad_output, Mode::Nearest, 3, output_size, input_size, false, {scales_d, scales_h, scales_w});
}
Tensor _upsample_nearest_exact1d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                          S scales) {
  return upsample_bwd(grad_output, Mode::NearestExact, 1, output_size, input_size, false, {none, none, scales});
}
Tensor _upsample_nearest_exact2d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                          S scales_h, S scales_w) {
  return upsample_bwd(grad_output, Mode::NearestExact, 2, output_size, input_size, false, {none, scales_h, scales_w});
}
Tensor _upsample_nearest_exact3d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                          S scales_d, S scales_h, S scales_w) {
  return upsample_bwd(grad_output, Mode::NearestExact, 3, output_size, input_size, false,
                      {scales_d, scales_h, scales_w});
}
Tensor upsample_linear1d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                  bool align_corners, S scales) {
  return upsample_bwd(grad_output, Mode::Linear, 1, output_size, input_size, align_corners, {none, none, scales});
}
Tensor upsample_bilinear2d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                    bool align_corners, S scales_h, S scales_w) {
  return upsample_bwd(grad_output, Mode::Linear, 2, output_size, input_size, align_corners, {none, scales_h, scales_w});
}
Tensor upsample_bicubic2d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                   bool align_corners, S scales_h, S scales_w) {
  return upsample_bwd(grad_output, Mode::Cubic, 2, output_size, input_size, align_corners, {none, scales_h, scales_w});
}
Tensor upsample_trilinear3d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                     bool align_corners, S scales_d, S scales_h, S scales_w) {
  return upsample_bwd(grad_output, Mode::Linear, 3, output_size, input_size, align_corners,
                      {scales_d, scales_h, scales_w});
}

}  // namespace ember
