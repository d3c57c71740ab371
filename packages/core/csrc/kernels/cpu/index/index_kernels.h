// The index kernels (CPU): the entries of the backend table's IndexKernels (kernels/backend.h,
// which says what each takes). The op bodies in ops/index/ check the arguments, normalise the
// indices to contiguous int64 and allocate; these only move and combine elements.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "kernels/index_args.h"

namespace ember::indexing {

// scatter_gather.cpp: gather / scatter along one dim
int64_t first_out_of_range(const int64_t* idx, int64_t n, int64_t size);
bool gather(const Tensor& input, int64_t dim, const Tensor& idx, const Tensor& out);
void scatter(const char* name, const Tensor& self, int64_t dim, const Tensor& idx, const Tensor* src,
             const Tensor* value, Reduce red);

// index_rows.cpp: whole slices along one dim (index_select / copy / add / fill), take and put
bool select_rows(const Tensor& x, int64_t dim, const Tensor& idx, const Tensor& dst, const IndexCheck& check);
void copy_rows(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& src, const IndexCheck& check);
void add_rows(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& src, const Scalar& alpha,
              const IndexCheck& check);
void fill_rows(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& value, const IndexCheck& check);
void take(const Tensor& x, const Tensor& idx, const Tensor& out, const IndexCheck& check);
void put(const Tensor& dst, const Tensor& idx, const Tensor& src, bool accumulate, const IndexCheck& check);

// advanced_index.cpp: tensors of indices over several dims
bool add_offsets(const int64_t* idx, int64_t n, int64_t size, int64_t stride, int64_t* off, int64_t dim, bool report);
void advanced_gather(const Tensor& self, const Tensor& out, const AdvancedRows& a);
void advanced_put(const Tensor& self, const Tensor& values, const AdvancedRows& a, bool accumulate);

// mask_kernels.cpp: bool masks
void count_true(const Tensor& mask, MaskChunks& c);
void nonzero(const Tensor& mask, IntArrayRef sizes, const MaskChunks& c, const Tensor& out);
void masked_select(const Tensor& x, const Tensor& mask, const MaskChunks& c, const Tensor& out);
void masked_fill(const Tensor& dst, const Tensor& mask, const Tensor& value);
void masked_fill_strided(const Tensor& self, const Tensor& mask, const Tensor& value);
void masked_scatter(const Tensor& dst, const Tensor& mask, const Tensor& src);

// search_kernels.cpp: binning and counting
void to_doubles(const Tensor& x, double* out);
void searchsorted(const SearchArgs& a, const Tensor& out);
void bincount(const Tensor& idx, const Tensor& weights, const Tensor& out);
void histc(const double* v, int64_t n, double lo, double hi, const Tensor& out);

// unique_rows.cpp: unique's sort and grouping
void unique_groups(const Tensor& data, int64_t rows, int64_t width, bool sort, bool by_dim, UniqueGroups& g);

}  // namespace ember::indexing
