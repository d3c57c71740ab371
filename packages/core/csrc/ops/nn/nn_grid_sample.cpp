// grid_sampler_2d / grid_sampler_3d (F.grid_sample's ops) and their backward: PyTorch's
// argument checks, contiguous operands, the kernels of kernels/cpu/pool/grid_sample.cpp.
#include "ops/nn/nn_grid_sample.h"

#include "kernels/backend.h"
#include "ops.h"

namespace ember {

namespace {

const char* kernel_name(int dims) { return dims == 2 ? "grid_sampler_2d_cpu_kernel_impl" : "grid_sampler3d_cpu"; }

// aten's check_grid_sampler_common / _2d / _3d, in its order
void check_grid_sampler(const Tensor& input, const Tensor& grid, int64_t mode, int dims) {
  for (const Tensor* t : {&input, &grid})  // aten reads size(0) of each
    if (t->dim() == 0) fail(ErrorKind::Index, "Dimension specified as 0 but tensor has no dimensions");
  EMBER_CHECK(input.size(0) == grid.size(0),
              "grid_sampler(): expected grid and input to have same batch size, but got input with sizes ",
              shape_str(input.sizes()), " and grid with sizes ", shape_str(grid.sizes()));
  EMBER_CHECK(grid.size(grid.dim() - 1) == input.dim() - 2, "grid_sampler(): expected grid to have size ",
              input.dim() - 2, " in last dimension, but got grid with sizes ", shape_str(grid.sizes()));
  for (int64_t i = 2; i < input.dim(); ++i)
    EMBER_CHECK(input.size(i) > 0,
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes ",
                shape_str(input.sizes()), " with dimension ", i, " being empty");
  EMBER_CHECK(input.dim() == dims + 2 && input.dim() == grid.dim(), "grid_sampler(): expected ", dims + 2,
              "D input and grid with same number of dimensions, but got input with sizes ", shape_str(input.sizes()),
              " and grid with sizes ", shape_str(grid.sizes()));
  EMBER_CHECK(!(dims == 3 && mode == 2), "grid_sampler(): bicubic interpolation only supports 4D input");
}

// What aten's kernels check once they run (a 4-d call with an empty output runs none of them)
void check_kernel_args(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding, int dims) {
  if (!is_floating(input.dtype())) dtype_not_implemented(kernel_name(dims), input.dtype());
  EMBER_CHECK(grid.dtype() == input.dtype(), "expected scalar type ", legacy_name(input.dtype()), " but found ",
              legacy_name(grid.dtype()));
  // PyTorch reads an unknown enum value as garbage; ember refuses it
  EMBER_CHECK(mode >= 0 && mode <= 2, "grid_sampler(): expected interpolation_mode to be 0 (bilinear), ",
              "1 (nearest) or 2 (bicubic), but got: ", mode);
  EMBER_CHECK(padding >= 0 && padding <= 2, "grid_sampler(): expected padding_mode to be 0 (zeros), ",
              "1 (border) or 2 (reflection), but got: ", padding);
}

pool::GridSampleGeometry geometry(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding,
                                  bool align_corners, int dims) {
  pool::GridSampleGeometry g;
  g.dims = dims;
  g.mode = static_cast<int>(mode);
  g.padding = static_cast<int>(padding);
  g.align_corners = align_corners;
  g.N = input.size(0);
  g.C = input.size(1);
  for (int i = 0; i < dims; ++i) {
    g.in[3 - dims + i] = input.size(2 + i);
    g.out[3 - dims + i] = grid.size(1 + i);
  }
  return g;
}

Tensor grid_sampler_nd(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding, bool align_corners,
                       int dims) {
  check_grid_sampler(input, grid, mode, dims);
  // the 5-d kernel dispatches on the dtype before it looks at the sizes
  if (dims == 3 && !is_floating(input.dtype())) dtype_not_implemented(kernel_name(dims), input.dtype());
  const pool::GridSampleGeometry g = geometry(input, grid, mode, padding, align_corners, dims);
  DimVector shape{g.N, g.C};
  for (int i = 0; i < dims; ++i) shape.push_back(g.out[3 - dims + i]);
  Tensor y = empty(shape, input.dtype(), input.device());
  if (y.numel() == 0) return y;
  check_kernel_args(input, grid, mode, padding, dims);
  const Tensor x = contiguous(input, MemoryFormat::Contiguous), gr = contiguous(grid, MemoryFormat::Contiguous);
  backend(input).pool.grid_sample(input.dtype(), kernel_name(dims), g, x.raw(), gr.raw(), y.raw());
  return y;
}

}  // namespace

Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                       bool align_corners) {
  return grid_sampler_nd(input, grid, interpolation_mode, padding_mode, align_corners, 2);
}

Tensor grid_sampler_3d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                       bool align_corners) {
  return grid_sampler_nd(input, grid, interpolation_mode, padding_mode, align_corners, 3);
}

std::tuple<Tensor, Tensor> grid_sampler_backward_nd(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                    int64_t mode, int64_t padding, bool align_corners, bool input_grad,
                                                    bool grid_grad) {
  const int dims = static_cast<int>(input.dim()) - 2;
  const pool::GridSampleGeometry g = geometry(input, grid, mode, padding, align_corners, dims);
  Tensor gx = input_grad ? zeros(input.sizes(), input.dtype(), input.device()) : Tensor();
  Tensor gg = grid_grad ? empty(grid.sizes(), grid.dtype(), grid.device()) : Tensor();
  if (g.N * g.out[0] * g.out[1] * g.out[2] == 0 || g.C == 0) {
    if (grid_grad) gg = zeros(grid.sizes(), grid.dtype(), grid.device());
    return {gx, gg};
  }
  const Tensor x = contiguous(input, MemoryFormat::Contiguous), gr = contiguous(grid, MemoryFormat::Contiguous);
  const Tensor go = contiguous(grad_output, MemoryFormat::Contiguous);
  backend(input).pool.grid_sample_backward(input.dtype(), kernel_name(dims), g, go.raw(), x.raw(), gr.raw(),
                                           input_grad ? gx.raw() : nullptr, grid_grad ? gg.raw() : nullptr);
  return {gx, gg};
}

}  // namespace ember
