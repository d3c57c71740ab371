// embedding: rows of a (num_weights, dim) table picked by integer indices, and the
// backward scatter-add into the table (padding_idx rows get no gradient).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/parallel.h"
#include "iter/elementwise_iter.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/nn/nn_fused_backward.h"

namespace ember {

namespace {

// PyTorch's name of a tensor type in argument checks: torch.<Legacy>Tensor where one exists.
std::string type_string(ScalarType t) {
  if (t == ScalarType::Bool || t == ScalarType::BFloat16) return str("CPU", legacy_name(t), "Type");
  return str("torch.", legacy_name(t), "Tensor");
}

// Indices as a dense int64 vector, each checked against [0, n) with the errors of PyTorch's
// index_select(weight, 0, indices) (an empty table raises RuntimeError, as there).
std::vector<int64_t> checked_indices(const Tensor& indices, int64_t n, int64_t dim) {
  EMBER_CHECK(indices.dtype() == ScalarType::Int64 || indices.dtype() == ScalarType::Int32,
              "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
              "but got ",
              type_string(indices.dtype()), " instead (while checking arguments for embedding)");
  Tensor idx = contiguous(to_dtype(indices, ScalarType::Int64), MemoryFormat::Contiguous);
  const int64_t* p = idx.data<int64_t>();
  std::vector<int64_t> v(p, p + idx.numel());
  if (!v.empty() && n * dim == 0) {
    EMBER_CHECK(n > 0, "index_select(): self indexing axis dim should be positive");
    for (int64_t i : v) EMBER_CHECK(i >= 0 && i < n, "INDICES element is out of DATA bounds, id=", i, " axis_dim=", n);
  }
  for (int64_t i : v) EMBER_CHECK_INDEX(i >= 0 && i < n, "index out of range in self");
  return v;
}

}  // namespace

Tensor nn_embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                    bool sparse) {
  (void)padding_idx;
  (void)scale_grad_by_freq;
  EMBER_CHECK(!sparse, "embedding: sparse gradients are not supported by ember");
  EMBER_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  const int64_t rows = weight.sizes()[0], dim = weight.sizes()[1];
  std::vector<int64_t> idx = checked_indices(indices, rows, dim);
  DimVector shape = to_vec(indices.sizes());
  shape.push_back(dim);
  Tensor w = contiguous(weight, MemoryFormat::Contiguous);
  Tensor out = empty(shape, weight.dtype(), weight.device());
  const int64_t n = static_cast<int64_t>(idx.size());
  const size_t row_bytes = static_cast<size_t>(dim) * w.itemsize();
  const char* src = w.raw();
  char* dst = out.raw();
  if (row_bytes == 0) return out;
  parallel_for(0, n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(dim, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) std::memcpy(dst + i * row_bytes, src + idx[i] * row_bytes, row_bytes);
  });
  return out;
}

namespace nn_kernels {

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx,
                          bool scale_grad_by_freq) {
  Tensor idx_t = contiguous(to_dtype(indices, ScalarType::Int64), MemoryFormat::Contiguous);
  const int64_t* idx = idx_t.data<int64_t>();
  const int64_t n = idx_t.numel();
  const int64_t dim = grad.dim() ? grad.sizes()[grad.dim() - 1] : 1;
  Tensor g = contiguous(grad, MemoryFormat::Contiguous);
  Tensor out = zeros({num_weights, dim}, grad.dtype(), grad.device());
  std::vector<int64_t> counts;
  if (scale_grad_by_freq) {
    counts.assign(static_cast<size_t>(num_weights), 0);
    for (int64_t i = 0; i < n; ++i) ++counts[idx[i]];
  }
  EMBER_DISPATCH_FLOAT(grad.dtype(), "embedding_backward", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* gp = g.data<scalar_t>();
    scalar_t* op = out.data<scalar_t>();
    // Each thread owns a range of table rows and scans every index: no write races.
    parallel_for(0, num_weights, std::max<int64_t>(1, num_weights / 64 + 1), [&](int64_t r0, int64_t r1) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = idx[i];
        if (r < r0 || r >= r1 || r == padding_idx) continue;
        const A s = scale_grad_by_freq ? A(1) / static_cast<A>(counts[r]) : A(1);
        const scalar_t* gi = gp + i * dim;
        scalar_t* orow = op + r * dim;
        for (int64_t k = 0; k < dim; ++k) orow[k] = scalar_t(static_cast<A>(orow[k]) + static_cast<A>(gi[k]) * s);
      }
    });
  });
  return out;
}

}  // namespace nn_kernels
}  // namespace ember
