// masked_scatter, take_along_dim and put: index ops written over a flat,
// row-major view of their input (or as a gather on broadcast operands); the writes are
// the backend's index kernels (kernels/cpu/index/).
#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/index/index_common.h"

namespace ember {

using namespace index_detail;

namespace {

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : contiguous(t, MemoryFormat::Contiguous); }

// Runs body(flat contiguous tensor with self's values), writing back if self was strided.
template <class F>
const Tensor& on_dense(const Tensor& self, const F& body) {
  Tensor dst = self.is_contiguous() ? self : clone(self, MemoryFormat::Contiguous);
  body(dst);
  if (!dst.same(self)) copy_into(self, dst);
  self.bump_version();
  return self;
}

}  // namespace

// ---- masked_scatter ---------------------------------------------------------------

Tensor masked_scatter_(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_inplace(self, "masked_scatter_");
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "masked_scatter_ only supports boolean masks, but got mask with dtype ",
              legacy_name(mask.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "masked_scatter: expected self and source to have same dtypes but got",
              legacy_name(self.dtype()), " and ", legacy_name(source.dtype()));
  DimVector bs = broadcast_shapes(self.sizes(), mask.sizes());
  EMBER_CHECK(same_shape(bs, self.sizes()), "masked_scatter_: expected mask to be broadcastable to self, got mask ",
              shape_str(mask.sizes()), " and self ", shape_str(self.sizes()));
  Tensor m = to_device_of(dense(expand(mask, self.sizes(), false)), self);
  int64_t count = 0;
  if (m.device().is_cpu()) {
    const bool* mp = m.data<bool>();
    for (int64_t i = 0, n = m.numel(); i < n; ++i) count += mp[i];
  } else {  // counted on the device, the count brought back
    indexing::MaskChunks c;
    backend(m).index.count_true(m, c);
    count = c.count;
  }
  EMBER_CHECK(source.numel() >= count, "Number of elements of source < number of ones in mask");
  no_shell_unsigned("masked_scatter", self.dtype());
  Tensor src = to_device_of(dense(source), self);
  return on_dense(self, [&](const Tensor& dst) { backend(dst).index.masked_scatter(dst, m, src); });
}

Tensor masked_scatter(const Tensor& input, const Tensor& mask, const Tensor& source) {
  DimVector bs = broadcast_shapes(input.sizes(), mask.sizes());
  Tensor out = clone(expand(input, bs, false), MemoryFormat::Contiguous);
  return masked_scatter_(out, mask, source);
}

// ---- take_along_dim -------------------------------------------------------------------

Tensor take_along_dim(const Tensor& input, const Tensor& indices, std::optional<int64_t> dim) {
  // PyTorch flattens with view (not reshape): a non-viewable input raises its view error. The
  // flat form is plain gather, whose index rules (int32 too; any dtype when empty) apply.
  if (!dim) return gather(view(input, {-1}), 0, view(indices, {-1}), false);
  EMBER_CHECK(input.dim() == indices.dim(),
              "torch.take_along_dim(): input and indices should have the same number of "
              "dimensions, but got ",
              input.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  EMBER_CHECK(indices.dtype() == ScalarType::Int64, "torch.take_along_dim(): dtype of indices should be Long but got ",
              legacy_name(indices.dtype()));
  int64_t d = wrap_dim(*dim, std::max<int64_t>(input.dim(), 1));
  // aten reads indices.size(dim) next: a 0-d pair is its IndexError.
  const int64_t n = input.size(d), m = indices.size(d);
  DimVector a(input.sizes().begin(), input.sizes().end()), b(indices.sizes().begin(), indices.sizes().end());
  a[d] = 1;
  b[d] = 1;
  DimVector bs = broadcast_shapes(a, b);
  DimVector xs = bs, is = bs;
  xs[d] = n;
  is[d] = m;
  Tensor idx = expand(indices, is, false);
  // PyTorch 2.13 takes the broadcast indices modulo the dim's size (Python's sign: -1 is the last,
  // 5 of 3 is 2) instead of bounds-checking them; a dim of size 0 is remainder's ZeroDivisionError
  // once there is an index to take.
  if (idx.numel() > 0) idx = remainder(idx, wrap_scalar(Scalar(n)));
  return gather(expand(input, xs, false), d, idx, false);
}

Tensor take_along_dim_out(const Tensor& input, const Tensor& indices, std::optional<int64_t> dim, const Tensor& out) {
  Tensor r = take_along_dim(input, indices, dim);
  EMBER_CHECK(out.dtype() == r.dtype(), "Expected out tensor to have dtype ", dtype_name(r.dtype()), ", but got ",
              dtype_name(out.dtype()), " instead");
  resize_out(out, r.sizes());
  copy_into(out, r);
  return out;
}

// ---- put ----------------------------------------------------------------------------------

Tensor put_(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  check_inplace(self, "put_");
  EMBER_CHECK(index.dtype() == ScalarType::Int64, "put_(): Expected a long tensor for index, but got ",
              legacy_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(),
              "put_(): self and source expected to have the same dtype, but got "
              "self.dtype = ",
              legacy_name(self.dtype()), " and source.dtype = ", legacy_name(source.dtype()));
  EMBER_CHECK_INDEX(index.numel() == source.numel(),
                    "put_(): Expected source and index to have the same number of "
                    "elements, but got source.numel() = ",
                    source.numel(), ", index.numel() = ", index.numel());
  EMBER_CHECK_INDEX(!(self.numel() == 0 && index.numel() != 0), "put_(): Tried to put elements into an empty tensor");
  // aten's order: the written tensor's overlaps before any index is read
  check_no_internal_overlap(self);
  check_no_overlap(self, index);
  check_no_overlap(self, source);
  Tensor idx = to_device_of(as_long_contiguous(index), self);
  check_take_range(idx, self.numel());
  Tensor src = to_device_of(dense(source), self);
  return on_dense(self, [&](const Tensor& dst) { backend(dst).index.put(dst, idx, src, accumulate, take_check()); });
}

Tensor put(const Tensor& input, const Tensor& index, const Tensor& source, bool accumulate) {
  return put_(clone(input, MemoryFormat::Contiguous), index, source, accumulate);
}

}  // namespace ember
