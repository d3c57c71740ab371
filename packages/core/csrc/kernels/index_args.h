// The index family's vocabulary (kernels/backend.h, IndexKernels): device-independent, so the
// backend table can name it for every device and the op bodies (ops/index/) can build it.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/device_error_code.h"
#include "kernels/element_bytes.h"

namespace ember::indexing {

using ::ember::by_itemsize;
using ::ember::Bytes16;

// Sizes/strides with a 0-d tensor seen as 1-d of one element.
inline DimVector sizes1(const Tensor& t) {
  return t.dim() == 0 ? DimVector{1} : DimVector(t.sizes().begin(), t.sizes().end());
}
inline DimVector strides1(const Tensor& t) {
  return t.dim() == 0 ? DimVector{1} : DimVector(t.strides().begin(), t.strides().end());
}

// scatter's reductions (None: plain assignment). Mean is the op's sum and count; the kernel
// never sees it.
enum class Reduce : uint8_t { None, Add, Mul, Mean, Max, Min };

// How a GPU kernel checks the indices an op body left on the device unchecked (index_select,
// index_copy / add / fill, take, put_): each in [0, size) of the indexed dim, or [-size, size)
// wrapped when negative_ok; a bad one is skipped (a read gives 0) and recorded as `code` with
// `dim` for the next wait for the device. The CPU's kernels get checked, wrapped indices.
struct IndexCheck {
  DeviceErrorCode code = kIndexOutOfRange;
  int64_t dim = 0;
  bool negative_ok = false;
};

// A bool mask of n flags cut into chunks of `chunk` (one per thread): start[j] is where chunk
// j's true flags begin in a compacted output, start[chunks] = count, their number (on the host
// whatever the mask's device: the op body sizes the result from count).
struct MaskChunks {
  int64_t n = 0, chunk = 1, count = 0;
  std::vector<int64_t> start;
};

// Advanced indexing's element moves: for each of nb positions of the broadcast index shape,
// offsets[i] is the element offset in self over the indexed dims, and the rn positions of the
// other ("rest") dims sit at rest_src[r] in self and rest_out[r] past i * b_stride in the
// (contiguous) result. rest_src / rest_out may be null when rn == 1, or when dense (the rest
// block is contiguous in both: one copy of rn elements). The arrays live where the kernels run:
// on the host for the CPU, on self's device for a GPU.
struct AdvancedRows {
  const int64_t* offsets = nullptr;
  int64_t nb = 0, rn = 0, b_stride = 0;
  bool dense = false;
  const int64_t* rest_src = nullptr;
  const int64_t* rest_out = nullptr;
};

// searchsorted over rows_in rows of len boundaries (one row: every value searches it; more:
// the values split evenly among them), values and boundaries as doubles; order: the sorter's
// permutation per row, or null.
struct SearchArgs {
  const double* boundaries = nullptr;
  const double* values = nullptr;
  int64_t n_values = 0, len = 0, rows_in = 1;
  const int64_t* order = nullptr;
  bool right = false;
};

// unique's groups of equal rows: the first row of each group (in the order the groups come),
// each row's group and each group's size.
struct UniqueGroups {
  std::vector<int64_t> first, inverse, counts;
};

}  // namespace ember::indexing
