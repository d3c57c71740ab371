// IndexKernels' CUDA entries (kernels/backend.h says what each takes): index_kernels.cu (one dim,
// take / put_), advanced_index_kernels.cu (advanced indexing), mask_kernels.cu (bool masks),
// search_kernels.cu (searchsorted, bincount, histc). Every tensor and raw pointer they receive is
// device memory, but for a 0-d value the op body may have made on the host. to_doubles (the op
// bodies convert on the device instead) has no CUDA kernel, unique_groups none needed (null: unique
// composes its groups on the device).
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "kernels/index_args.h"

namespace ember {
struct IndexKernels;
}

namespace ember::cuda {

int64_t first_out_of_range(const int64_t* idx, int64_t n, int64_t size);
bool index_gather(const Tensor& input, int64_t dim, const Tensor& idx, const Tensor& out);
void index_scatter(const char* name, const Tensor& self, int64_t dim, const Tensor& idx, const Tensor* src,
                   const Tensor* value, indexing::Reduce red);
bool select_rows(const Tensor& x, int64_t dim, const Tensor& idx, const Tensor& dst, const indexing::IndexCheck& check);
void copy_rows(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& src, const indexing::IndexCheck& check);
void add_rows(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& src, const Scalar& alpha,
              const indexing::IndexCheck& check);
void fill_rows(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& value,
               const indexing::IndexCheck& check);
void take(const Tensor& x, const Tensor& idx, const Tensor& out, const indexing::IndexCheck& check);
void put(const Tensor& dst, const Tensor& idx, const Tensor& src, bool accumulate, const indexing::IndexCheck& check);

bool add_offsets(const int64_t* idx, int64_t n, int64_t size, int64_t stride, int64_t* off, int64_t dim, bool report);
void advanced_gather(const Tensor& self, const Tensor& out, const indexing::AdvancedRows& a);
void advanced_put(const Tensor& self, const Tensor& values, const indexing::AdvancedRows& a, bool accumulate);

void count_true(const Tensor& mask, indexing::MaskChunks& c);
void nonzero(const Tensor& mask, IntArrayRef sizes, const indexing::MaskChunks& c, const Tensor& out);
void masked_select(const Tensor& x, const Tensor& mask, const indexing::MaskChunks& c, const Tensor& out);
void masked_fill(const Tensor& dst, const Tensor& mask, const Tensor& value);
void masked_fill_strided(const Tensor& self, const Tensor& mask, const Tensor& value);
void masked_scatter(const Tensor& dst, const Tensor& mask, const Tensor& src);

void searchsorted(const indexing::SearchArgs& a, const Tensor& out);
void bincount(const Tensor& idx, const Tensor& weights, const Tensor& out);
void histc(const double* v, int64_t n, double lo, double hi, const Tensor& out);

// Sets the entries above in the CUDA table's index family (the rest keep raising).
void fill_index_kernels(IndexKernels& k);

}  // namespace ember::cuda
