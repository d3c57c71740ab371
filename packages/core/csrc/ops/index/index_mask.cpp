// Boolean-mask ops: nonzero / argwhere, masked_fill, masked_select: checks and allocation;
// the counting and writing passes are the backend's index kernels (kernels/cpu/index/).
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

// Nonzero flags of t (any dtype) as a contiguous bool tensor.
Tensor truth(const Tensor& t) {
  if (t.dtype() == ScalarType::Bool) return dense(t);
  return dense(ne(t, wrap_scalar(Scalar(int64_t(0)))));
}

// Per-chunk counts of true flags and their exclusive prefix sums.
indexing::MaskChunks count_true(const Tensor& m) {
  indexing::MaskChunks c;
  backend(m).index.count_true(m, c);
  return c;
}

void check_bool_mask(const char* name, const Tensor& mask) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, name, " only supports boolean masks, but got mask with dtype ",
              dtype_name(mask.dtype()));
}

}  // namespace

Tensor nonzero_out(const Tensor& input, const Tensor& out) {
  EMBER_CHECK(out.dtype() == ScalarType::Int64,
              "nonzero: Expected out tensor to have scalar type Long but got scalar type", dtype_name(out.dtype()));
  no_shell_unsigned("nonzero_count_cpu", input.dtype());
  Tensor m = truth(input);
  indexing::MaskChunks c = count_true(m);
  int64_t nd = input.dim();
  resize_out(out, {c.count, nd});
  backend(m).index.nonzero(m, input.sizes(), c, out);
  out.bump_version();
  return out;
}

Tensor nonzero(const Tensor& input) {
  Tensor out = empty({0}, ScalarType::Int64, input.device());
  return nonzero_out(input, out);
}

Tensor argwhere(const Tensor& input) { return nonzero(input); }

// ---- masked_fill -------------------------------------------------------------

Tensor masked_fill_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_inplace(self, "masked_fill_");
  check_bool_mask("masked_fill_", mask);
  DimVector bs = broadcast_shapes(self.sizes(), mask.sizes());
  EMBER_CHECK(same_shape(bs, self.sizes()), "masked_fill_: the size of the mask ", shape_str(mask.sizes()),
              " must be broadcastable to the size of self ", shape_str(self.sizes()));
  if (self.dtype() != ScalarType::ComplexHalf)  // (any number fits complex32, as complex64)
    EMBER_DISPATCH_ALL_AND_COMPLEX(self.dtype(), "masked_fill_",
                                   [&] { (void)value.checked<scalar_t>(); });  // must fit, as fill_
  Tensor v = scalar_tensor(value, self.dtype());
  Tensor m = to_device_of(dense(expand(mask, self.sizes(), false)), self);
  if (has_internal_overlap(self)) {
    // PyTorch only warns for an expanded self (deprecated) and writes through its strides.
    backend(self).index.masked_fill_strided(self, m, v);
    self.bump_version();
    return self;
  }
  Tensor dst = self.is_contiguous() ? self : clone(self, MemoryFormat::Contiguous);
  backend(dst).index.masked_fill(dst, m, v);
  if (!dst.same(self)) copy_into(self, dst);
  self.bump_version();
  return self;
}

Tensor masked_fill(const Tensor& input, const Tensor& mask, const Scalar& value) {
  check_bool_mask("masked_fill_", mask);
  DimVector bs = broadcast_shapes(input.sizes(), mask.sizes());
  Tensor out = clone(expand(input, bs, false), MemoryFormat::Contiguous);
  return masked_fill_(out, mask, value);
}

Tensor masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill_(self, mask, value.item());
}

Tensor masked_fill(const Tensor& input, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill(input, mask, value.item());
}

// ---- masked_select -------------------------------------------------------------

Tensor masked_select_out(const Tensor& input, const Tensor& mask, const Tensor& out) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  EMBER_CHECK(out.dtype() == input.dtype(), "masked_select(): self and result must have the same scalar type");
  // aten's order: out= may neither overlap itself (an expanded out) nor its inputs.
  check_no_internal_overlap(out);
  check_no_overlap(out, input);
  check_no_overlap(out, mask);
  DimVector bs = broadcast_shapes(input.sizes(), mask.sizes());
  Tensor x = dense(expand(input, bs, false));
  Tensor m = to_device_of(dense(expand(mask, bs, false)), x);
  indexing::MaskChunks c = count_true(m);
  if (c.count > 0) no_shell_unsigned("masked_select", input.dtype());  // nothing selected: aten never dispatches
  resize_out(out, {c.count});
  backend(x).index.masked_select(x, m, c, out);
  out.bump_version();
  return out;
}

Tensor masked_select(const Tensor& input, const Tensor& mask) {
  Tensor out = empty({0}, input.dtype(), input.device());
  return masked_select_out(input, mask, out);
}

}  // namespace ember
