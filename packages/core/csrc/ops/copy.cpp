// Copies, casts and fills: everything that writes one tensor's values into another.
#include "../iter/elementwise_iter.h"
#include "../kernels/cpu/cpu_kernels.h"
#include "inplace_check.h"
#include "internal.h"
#include "ops.h"

namespace ember {

void copy_into(const Tensor& dst, const Tensor& src) {
  if (dst.same(src) || dst.numel() == 0) return;
  check_device_available(dst.device());
  IterSpec spec{"copy_", dst, true, DtypeRule::Promote, dst.dtype(), false};
  ElementwiseIter it(spec, {src});
  cpu_kernels().copy(it);
}

// Dense with no gaps or overlaps in some dim order (e.g. a transposed matrix).
static bool non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  int64_t nd = t.dim();
  DimVector order(static_cast<size_t>(nd));
  for (int64_t i = 0; i < nd; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return t.strides()[a] < t.strides()[b];
  });
  int64_t expected = 1;
  for (int64_t k = 0; k < nd; ++k) {
    int64_t d = order[k];
    if (t.sizes()[d] == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

Tensor empty_with_layout_of(const Tensor& t, ScalarType dtype, std::optional<MemoryFormat> mf) {
  bool preserve = !mf || *mf == MemoryFormat::Preserve;
  if (preserve && !t.is_contiguous() && non_overlapping_and_dense(t))
    return empty_strided(t.sizes(), t.strides(), dtype);
  return empty(t.sizes(), dtype);
}

const Tensor& resize_out(const Tensor& out, IntArrayRef sizes) {
  if (!out.sizes().equals(sizes)) {
    TensorImpl* o = out.impl();
    o->sizes = to_vec(sizes);
    o->strides = contiguous_strides(sizes);
    o->refresh();
    resize_storage(*o->storage, (o->offset + o->numel) * o->itemsize());
  }
  return out;
}

Tensor to_dtype(const Tensor& t, ScalarType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor r = empty_with_layout_of(t, dtype, std::nullopt);
  copy_into(r, t);
  return r;
}

Tensor copy_(const Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;
  check_inplace(self, "copy_");
  copy_into(self, src);
  self.bump_version();
  return self;
}

Tensor clone(const Tensor& input, std::optional<MemoryFormat> memory_format) {
  Tensor r = empty_with_layout_of(input, input.dtype(), memory_format);
  copy_into(r, input);
  return r;
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  (void)memory_format;
  if (self.is_contiguous()) return self;
  return clone(self, MemoryFormat::Contiguous);
}

Tensor fill_(const Tensor& self, const Scalar& value) {
  check_inplace(self, "fill_");
  copy_into(self, scalar_tensor(value, self.dtype()));
  self.bump_version();
  return self;
}

Tensor fill_(const Tensor& self, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ",
              value.dim(), " dimensions.");
  return fill_(self, value.item());
}

Tensor zero_(const Tensor& self) { return fill_(self, Scalar(int64_t(0))); }

void apply_requires_grad(const Tensor& t, bool requires_grad) {
  if (!requires_grad) return;
  EMBER_CHECK(t.is_floating(), "Only Tensors of floating point and complex dtype can require gradients");
  if (!t.impl()->autograd) t.impl()->autograd = std::make_unique<AutogradMeta>();
  t.impl()->autograd->requires_grad = true;
}

}  // namespace ember
