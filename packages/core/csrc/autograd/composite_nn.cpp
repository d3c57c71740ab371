// nn ops that aten implements as composites of differentiable ops (CompositeImplicitAutograd):
// their bodies call the autograd-aware ops (ember::ag::), so the result's node is the inner op's.
#include "autograd_ops.h"
#include "ops.h"

namespace ember {

// torch.grid_sampler: the 2-d op for a 4-d input, else the 3-d op (which checks the rank)
Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                    bool align_corners) {
  if (input.dim() == 4) return ag::grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners);
  return ag::grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners);
}

}  // namespace ember
