// EmbeddingKernels' CUDA entries (kernels/cuda/embedding_kernels.cu): every pointer is device
// memory, the indices checked in range by the op body (ops/nn/nn_embedding.cpp, nn_one_hot.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/scalar_type.h"

namespace ember::cuda {

void embedding_gather_rows(const char* weight, const int64_t* idx, int64_t n, int64_t rows, int64_t dim,
                           size_t row_bytes, char* out);
void embedding_backward(ScalarType dt, const void* grad, const int64_t* idx, int64_t n, int64_t dim,
                        int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq, void* out);
void one_hot(const int64_t* idx, int64_t n, int64_t classes, int64_t* out);

}  // namespace ember::cuda
