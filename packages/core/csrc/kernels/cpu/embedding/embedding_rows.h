// Row gathers and scatters by class index (CPU): the entries of the backend table's
// EmbeddingKernels (op bodies: ops/nn/nn_embedding.cpp, ops/nn/nn_one_hot.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/scalar_type.h"

namespace ember::embedding {

// out row i (row_bytes bytes, dim elements) = weight row idx[i], for n rows.
void gather_rows(const char* weight, const int64_t* idx, int64_t n, int64_t rows, int64_t dim, size_t row_bytes,
                 char* out);
// out (the zeroed (num_weights, dim) table of floating dtype dt) += grad row i at row idx[i], but
// for padding_idx; each divided by its index's count when scale_grad_by_freq.
void backward(ScalarType dt, const void* grad, const int64_t* idx, int64_t n, int64_t dim, int64_t num_weights,
              int64_t padding_idx, bool scale_grad_by_freq, void* out);
// out[i * classes + idx[i]] = 1 over the zeroed (n, classes) out.
void one_hot(const int64_t* idx, int64_t n, int64_t classes, int64_t* out);

}  // namespace ember::embedding
