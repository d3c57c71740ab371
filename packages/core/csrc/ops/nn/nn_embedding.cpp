// embedding: rows of a (num_weights, dim) table picked by integer indices, and the
// backward scatter-add into the table (padding_idx rows get no gradient); the loops are the
// backend table's EmbeddingKernels.
#include <string>
#include <vector>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/index/index_common.h"
#include "ops/nn/nn_fused_backward.h"

namespace ember {

namespace {

// Indices as a dense int64 vector, each checked against [0, n) with the errors of PyTorch's
// index_select(weight, 0, indices) (an empty table raises RuntimeError, as there).
void check_index_dtype(const Tensor& indices) {
  EMBER_CHECK(indices.dtype() == ScalarType::Int64 || indices.dtype() == ScalarType::Int32,
              "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
              "but got ",
              cpu_type_string(indices.dtype()), " instead (while checking arguments for embedding)");
}

std::vector<int64_t> checked_indices(const Tensor& indices, int64_t n, int64_t dim) {
  check_index_dtype(indices);
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

// The indices of a table on a GPU: they stay there (moved there if a CPU 0-d tensor joined) and
// the gather kernel checks them, reporting a bad one as the same IndexError at the next wait for
// the device (kernels/cuda/device_error.h), so the op does not wait. An empty table's errors
// (no kernel runs) are checked here, by the backend's range check.
Tensor device_indices(const Tensor& indices, const Tensor& weight, int64_t n, int64_t dim) {
  check_index_dtype(indices);
  Tensor idx =
      contiguous(to_dtype(index_detail::to_device_of(indices, weight), ScalarType::Int64), MemoryFormat::Contiguous);
  if (idx.numel() > 0 && n * dim == 0) {
    const index_detail::FirstBad b = index_detail::first_outside(idx, n, false);
    EMBER_CHECK(n > 0, "index_select(): self indexing axis dim should be positive");
    EMBER_CHECK(b.pos == idx.numel(), "INDICES element is out of DATA bounds, id=", b.value, " axis_dim=", n);
  }
  return idx;
}

}  // namespace

Tensor nn_embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                    bool sparse) {
  (void)padding_idx;
  (void)scale_grad_by_freq;
  EMBER_CHECK(!sparse, "embedding: sparse gradients are not supported by ember");
  EMBER_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  const int64_t rows = weight.sizes()[0], dim = weight.sizes()[1];
  DimVector shape = to_vec(indices.sizes());
  shape.push_back(dim);
  if (!weight.device().is_cpu()) {
    const Tensor idx = device_indices(indices, weight, rows, dim);
    const Tensor w = contiguous(weight, MemoryFormat::Contiguous);
    Tensor out = empty(shape, weight.dtype(), weight.device());
    const size_t row_bytes = static_cast<size_t>(dim) * w.itemsize();
    if (row_bytes == 0 || idx.numel() == 0) return out;
    backend(out).embedding.gather_rows(w.raw(), idx.data<int64_t>(), idx.numel(), rows, dim, row_bytes, out.raw());
    return out;
  }
  std::vector<int64_t> idx = checked_indices(indices, rows, dim);
  Tensor w = contiguous(weight, MemoryFormat::Contiguous);
  Tensor out = empty(shape, weight.dtype(), weight.device());
  const int64_t n = static_cast<int64_t>(idx.size());
  const size_t row_bytes = static_cast<size_t>(dim) * w.itemsize();
  if (row_bytes == 0) return out;
  backend(out).embedding.gather_rows(w.raw(), idx.data(), n, rows, dim, row_bytes, out.raw());
  return out;
}

namespace nn_kernels {

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx,
                          bool scale_grad_by_freq) {
  Tensor idx_t =
      contiguous(to_dtype(index_detail::to_device_of(indices, grad), ScalarType::Int64), MemoryFormat::Contiguous);
  const int64_t* idx = idx_t.data<int64_t>();
  const int64_t n = idx_t.numel();
  const int64_t dim = grad.dim() ? grad.sizes()[grad.dim() - 1] : 1;
  Tensor g = contiguous(grad, MemoryFormat::Contiguous);
  Tensor out = zeros({num_weights, dim}, grad.dtype(), grad.device());
  backend(out).embedding.backward(grad.dtype(), g.raw(), idx, n, dim, num_weights, padding_idx, scale_grad_by_freq,
                                  out.raw());
  return out;
}

}  // namespace nn_kernels
}  // namespace ember
