// Sort and selection kernels (CPU): the entries of the backend table's SortKernels
// (kernels/backend.h). x: `rows` contiguous rows of n values (the op's dim moved last);
// values (x's dtype) and indices (int64) contiguous, k (or 1, or n) per row.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "kernels/sort_kind.h"

namespace ember::sorting {

void sort_rows(const Tensor& x, int64_t rows, int64_t n, bool descending, const Tensor& values, const Tensor& indices);
void topk_rows(const Tensor& x, int64_t rows, int64_t n, int64_t k, bool largest, bool sorted, const Tensor& values,
               const Tensor& indices);
// `name` names the op in the unsupported-dtype error; k: kthvalue's (1-based).
void select_rows(const Tensor& x, int64_t rows, int64_t n, SelectKind what, int64_t k, const char* name,
                 const Tensor& values, const Tensor& indices);

}  // namespace ember::sorting
