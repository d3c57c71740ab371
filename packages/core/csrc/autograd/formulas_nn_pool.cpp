// Derivative helpers of the pooling / upsampling ops (see formulas_nn_pool.h).
#include "formulas_nn_pool.h"

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "autograd_ops.h"
#include "ops.h"
#include "ops/nn/nn_grid_sample.h"
#include "ops/nn/nn_pool.h"

namespace ember {

namespace {
// (planes, plane size) of `t` with its last n dims as the plane.
std::pair<int64_t, int64_t> plane_split(const Tensor& t, int64_t n) {
  int64_t plane = 1, planes = 1;
  for (int64_t i = 0; i < t.dim(); ++i) (i >= t.dim() - n ? plane : planes) *= t.size(i);
  return {planes, plane};
}
}  // namespace

Tensor max_pool_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t n) {
  auto [planes, plane] = plane_split(self, n);
  if (self.numel() == 0 || indices.numel() == 0) return zeros(self.sizes(), grad.dtype(), grad.device());
  const int64_t m = indices.numel() / planes;
  Tensor idx = reshape(indices, {planes, m});
  // No graph needed (grad is constant; the derivative in self is zero): one direct pass.
  if (!grad.requires_grad() && is_floating(grad.dtype()))
    return reshape(pool::plane_scatter_add(reshape(grad, {planes, m}), idx, plane), self.sizes());
  Tensor z = zeros({planes, plane}, grad.dtype(), grad.device());
  return ag::reshape(ag::scatter_add(z, 1, idx, ag::reshape(grad, {planes, m})), self.sizes());
}

Tensor max_unpool_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t n) {
  auto [planes, plane] = plane_split(grad, n);
  (void)plane;
  if (self.numel() == 0) return zeros(self.sizes(), grad.dtype(), grad.device());
  Tensor g = ag::reshape(grad, {planes, -1});
  Tensor idx = reshape(indices, {planes, -1});
  return ag::reshape(ag::gather(g, 1, idx, false), self.sizes());
}

Tensor adaptive_avg_pool_double_backward(const Tensor& grad, IntArrayRef grad_output_sizes, int64_t n) {
  DimVector out;
  for (int64_t i = static_cast<int64_t>(grad_output_sizes.size()) - n;
       i < static_cast<int64_t>(grad_output_sizes.size()); ++i)
    out.push_back(grad_output_sizes[i]);
  return n == 2 ? ag::adaptive_avg_pool2d(grad, out) : ag::adaptive_avg_pool3d(grad, out);
}

Tensor zeros_like_self(const Tensor& self) { return zeros(self.sizes(), self.dtype(), self.device()); }

Tensor grid_sampler_grad(const Tensor& grad, const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                         int64_t padding_mode, bool align_corners, int64_t which) {
  auto [gx, gg] = grid_sampler_backward_nd(grad, input, grid, interpolation_mode, padding_mode, align_corners,
                                           which == 0, which == 1);
  Tensor r = which == 0 ? gx : gg;
  // double backward is not ported: a graph through this gradient raises rather than drops terms
  if (GradMode::is_enabled() && any_requires_grad({&grad, &input, &grid})) {
    auto node =
        make_ref<NotImplementedBackward>(input.dim() == 4 ? "grid_sampler_2d_backward" : "grid_sampler_3d_backward");
    node->set_next_edges({&grad, &input, &grid});
    set_history(r, node);
  }
  return r;
}

}  // namespace ember
