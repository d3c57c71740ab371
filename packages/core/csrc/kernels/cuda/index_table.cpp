// The CUDA index family's entries in the backend table (kernels/cuda/index_kernels.h): a host
// file, since the table's header comes from the generated sources the .cu files do without.
#include "kernels/backend.h"
#include "kernels/cuda/index_kernels.h"

namespace ember::cuda {

void fill_index_kernels(IndexKernels& k) {
  k.first_out_of_range = first_out_of_range;
  k.gather = index_gather;
  k.scatter = index_scatter;
  k.select_rows = select_rows;
  k.copy_rows = copy_rows;
  k.add_rows = add_rows;
  k.fill_rows = fill_rows;
  k.take = take;
  k.put = put;
  k.add_offsets = add_offsets;
  k.advanced_gather = advanced_gather;
  k.advanced_put = advanced_put;
  k.count_true = count_true;
  k.nonzero = nonzero;
  k.masked_select = masked_select;
  k.masked_fill = masked_fill;
  k.masked_fill_strided = masked_fill_strided;
  k.masked_scatter = masked_scatter;
  k.searchsorted = searchsorted;
  k.bincount = bincount;
  k.histc = histc;
  k.unique_groups = nullptr;  // unique composes the groups from sort and scans on the device (index_unique.cpp)
}

}  // namespace ember::cuda
