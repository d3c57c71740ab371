// unique / unique_consecutive, over elements or over slices along a dim: the rows view and
// the outputs; the sort and grouping are the backend's index kernels (kernels/cpu/index/), or
// on a device without them (the GPU) composed from its sort, comparisons and scans.
#include <algorithm>
#include <tuple>
#include <vector>

#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/index/index_advanced.h"
#include "ops/index/index_common.h"

namespace ember {

using namespace index_detail;

namespace {

// rows x width matrix view of x with `dim` moved first (width 1 = elementwise).
struct Rows {
  Tensor data;
  int64_t rows = 0, width = 1;
};

Rows as_rows(const Tensor& x, std::optional<int64_t> dim) {
  Rows r;
  if (!dim) {
    r.data = contiguous(reshape(x, {-1}), MemoryFormat::Contiguous);
    r.rows = x.numel();
    return r;
  }
  DimVector perm{*dim};
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != *dim) perm.push_back(d);
  r.data = contiguous(permute(x, perm), MemoryFormat::Contiguous);
  r.rows = x.sizes()[*dim];
  r.width = r.rows ? x.numel() / r.rows : 0;
  return r;
}

Tensor long_tensor(const std::vector<int64_t>& v, IntArrayRef shape) {
  Tensor t = empty(shape, ScalarType::Int64);
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

// uint16/32/64 as the same-size signed ints (aten's unique gathers them; its 1-d index_select
// would not); other dtypes as they are.
Tensor as_signed_bits(const Tensor& t) {
  const ScalarType dt = t.dtype();
  if (!is_shell_unsigned(dt)) return t;
  return view(t, dt == ScalarType::UInt16   ? ScalarType::Int16
                 : dt == ScalarType::UInt32 ? ScalarType::Int32
                                            : ScalarType::Int64);
}

// t's rows at index, gathered as signed bits and viewed back as t's dtype.
Tensor pick_rows(const Tensor& t, const Tensor& index) {
  Tensor picked = index_select(as_signed_bits(t), 0, index);
  return picked.dtype() == t.dtype() ? picked : view(picked, t.dtype());
}

// Where the backend has no host grouping (the GPU): the groups from ops on the device -- a stable
// sort (of rows: one per column, the last first), the rows that differ from the one before (NaN
// from NaN too, as PyTorch's CUDA unique), their positions (one wait, for the count, as PyTorch's),
// and each row's group scattered back through the sort's permutation.
std::tuple<Tensor, Tensor, Tensor> unique_on_device(const Tensor& input, const Rows& r, std::optional<int64_t> d,
                                                    bool consecutive) {
  const Device dev = r.data.device();
  const int64_t n = r.rows;
  Tensor rows = d ? reshape(r.data, {n, r.width}) : r.data;
  Tensor perm = arange(Scalar(n), ScalarType::Int64, dev);
  if (!consecutive && !d) {
    std::tie(rows, perm) = sort(rows, true, 0, false);
  } else if (!consecutive) {
    for (int64_t c = r.width - 1; c >= 0; --c) {
      const Tensor key = index_select(select(rows, 1, c), 0, perm);
      perm = index_select(perm, 0, std::get<1>(sort(key, true, 0, false)));
    }
    rows = pick_rows(rows, perm);
  }
  const Tensor bits = as_signed_bits(rows);  // equal as signed bits where equal as unsigned values
  Tensor starts = full({std::min<int64_t>(n, 1)}, Scalar(true), ScalarType::Bool, dev);
  if (n > 1) {
    Tensor differs = ne(narrow(bits, 0, 1, n - 1), narrow(bits, 0, 0, n - 1));
    if (d) {
      const int64_t across[] = {1};
      differs = any(differs, IntArrayRef(across, 1), false);
    }
    starts = cat({starts, differs}, 0);
  }
  const Tensor positions = masked_select(arange(Scalar(n), ScalarType::Int64, dev), starts);
  const int64_t g = positions.numel();
  const Tensor group = sub(cumsum(starts, 0, ScalarType::Int64), wrap_scalar(Scalar(int64_t(1))));
  Tensor inverse = consecutive ? group : index_copy(empty({n}, ScalarType::Int64, dev), 0, perm, group);
  Tensor counts = positions;
  if (g > 0)
    counts = sub(cat({narrow(positions, 0, 1, g - 1), full({1}, Scalar(n), ScalarType::Int64, dev)}, 0), positions);
  Tensor values;
  if (d) {
    values = index_select(input, *d, index_select(perm, 0, positions));
  } else {
    values = pick_rows(rows, positions);
    inverse = reshape(inverse, input.sizes());
  }
  return {values, inverse, counts};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique_impl(const Tensor& input, std::optional<int64_t> dim, bool consecutive) {
  std::optional<int64_t> d;
  if (dim) {
    EMBER_CHECK_INDEX(input.dim() > 0, "Dimension specified as ", *dim, " but tensor has no dimensions");
    d = wrap_dim(*dim, input.dim());
    // aten's _unique_dim_cpu_template: the zero-size dims counted, the selected one apart
    const int64_t zeros = std::count(input.sizes().begin(), input.sizes().end(), int64_t(0));
    if (input.sizes()[*d] == 0) {
      EMBER_CHECK(zeros == 1, "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    } else {
      EMBER_CHECK(zeros == 0, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
    }
  }
  Rows r = as_rows(input, d);
  if (!backend(r.data).index.unique_groups) return unique_on_device(input, r, d, consecutive);
  indexing::UniqueGroups groups;
  backend(r.data).index.unique_groups(r.data, r.rows, r.width, !consecutive, d.has_value(), groups);
  int64_t g = static_cast<int64_t>(groups.first.size());
  Tensor firsts = long_tensor(groups.first, {g});
  Tensor values;
  if (d) {
    values = index_select(input, *d, firsts);
  } else {
    values = pick_rows(r.data, firsts);
  }
  Tensor inv = d ? long_tensor(groups.inverse, {r.rows}) : long_tensor(groups.inverse, input.sizes());
  return {values, inv, long_tensor(groups.counts, {g})};
}

// torch._VF's unique ops (ops/index.yaml; ember.unique picks their outputs as torch.unique does).
// Without dim an output not asked for is empty, as aten's; sorted is always honoured on the CPU.
namespace {
std::tuple<Tensor, Tensor, Tensor> asked(std::tuple<Tensor, Tensor, Tensor> r, bool inverse, bool counts) {
  const Device dev = std::get<0>(r).device();
  if (!inverse) std::get<1>(r) = empty({0}, ScalarType::Int64, dev);
  if (!counts) std::get<2>(r) = empty({0}, ScalarType::Int64, dev);
  return r;
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& input, bool, bool return_inverse, bool return_counts) {
  return asked(unique_impl(input, std::nullopt, false), return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& input, int64_t dim, bool, bool, bool) {
  // aten's dtype dispatch (no complex case) comes before the dim is read
  if (is_complex(input.dtype())) dtype_not_implemented("unique_dim", input.dtype());
  return unique_impl(input, dim, false);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& input, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  // aten takes the element-wise path for dim=0 of a 1-d input (written 0, not -1): an output not
  // asked for is empty there too
  const bool by_element = !dim || (*dim == 0 && input.dim() == 1);
  if (by_element) return asked(unique_impl(input, std::nullopt, true), return_inverse, return_counts);
  return unique_impl(input, dim, true);
}

}  // namespace ember
