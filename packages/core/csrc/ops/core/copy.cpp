// Copies, casts and fills: everything that writes one tensor's values into another.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/profiler_op.h"
#include "core/size_math.h"
#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"

namespace ember {

// A contiguous fill is a store loop of one bit pattern (FillKernels::fill); the generic
// iterator with a stride-0 source ran at half PyTorch's speed. v is in host memory.
static void fill_contiguous(const Tensor& self, const Tensor& v) {
  backend(self).fill.fill(self.raw(), self.numel(), self.itemsize(), v.raw());
}

// Every element of src is the same memory (a 0-d or fully expanded tensor) and src
// broadcasts to dst's shape (otherwise the iterator raises PyTorch's shape error).
static bool one_element_broadcast(const Tensor& src, const Tensor& dst) {
  const int64_t ns = src.dim(), nd = dst.dim();
  if (ns > nd) return false;
  for (int64_t i = 0; i < ns; ++i) {
    const int64_t s = src.sizes()[i], d = dst.sizes()[nd - ns + i];
    if (s != 1 && (src.strides()[i] != 0 || s != d)) return false;
  }
  return true;
}

void check_copy_broadcasts(const Tensor& dst, const Tensor& src) {
  if (src.sizes().equals(dst.sizes())) return;
  DimVector shape = broadcast_shapes(dst.sizes(), src.sizes());  // raises "The size of tensor a ..."
  EMBER_CHECK(dst.sizes().equals(shape), "output with shape ", shape_str(dst.sizes()),
              " doesn't match the broadcast shape ", shape_str(shape));
}

void copy_into(const Tensor& dst, const Tensor& src) {
  if (dst.same(src)) return;
  if (dst.impl()->conj != src.impl()->conj) [[unlikely]] {
    // One side is a lazy conjugate view: its memory holds the conjugates of its values, so the
    // stored values go across conjugated (a copy into a conj view writes conj(src), PyTorch's rule).
    // Across devices the conjugation runs on the CPU's side (a GPU has no complex kernels): the
    // stored bits come to the host first.
    Tensor s = physical_alias(src);
    if (s.device() != dst.device() && dst.device().is_cpu()) s = to_device(s, dst.device());
    copy_into(physical_alias(dst), conj_physical(s));
    return;
  }
  if (dst.numel() == 0) {
    check_copy_broadcasts(dst, src);  // nothing to write, but PyTorch checks the shapes
    return;
  }
  // One value from host memory into a dense destination on any device: the fill kernel takes the
  // value's bytes (e.g. the expanded grad of sum(), or full() on a GPU): a store loop, not a copy.
  const bool fill = dst.is_contiguous() && src.device().is_cpu() && src.dtype() == dst.dtype() && src.numel() > 0 &&
                    one_element_broadcast(src, dst);
  if (src.device() != dst.device() && !fill) return copy_across_devices(dst, src);
  check_device_available(dst.device());
  if (fill) {
    fill_contiguous(dst, src);
    return;
  }
  if (is_complex(src.dtype()) && !is_complex(dst.dtype()))
    warn("Casting complex values to real discards the imaginary part");  // PyTorch's UserWarning
  IterSpec spec{"copy_", dst, true, DtypeRule::Promote, dst.dtype(), false};
  ElementwiseIter it(spec, {&src});
  backend(dst).copy.copy(it);
}

bool non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  int64_t nd = t.dim();
  DimVector order(static_cast<size_t>(nd));
  for (int64_t i = 0; i < nd; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return t.strides()[a] < t.strides()[b]; });
  int64_t expected = 1;
  for (int64_t k = 0; k < nd; ++k) {
    int64_t d = order[k];
    if (t.sizes()[d] == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

// aten's infer_dense_strides: dense strides in the order of t's own (ascending; a tie goes to the
// smaller size first, a stride of 0 keeps its place), for a layout that is neither dense nor
// contiguous -- a sliced transpose keeps its transposed order.
static DimVector inferred_dense_strides(const Tensor& t) {
  const int64_t nd = t.dim();
  DimVector perm(static_cast<size_t>(nd));
  for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  auto should_swap = [&](int64_t d0, int64_t d1) {
    const int64_t s0 = t.strides()[d0], s1 = t.strides()[d1];
    if (s0 == 0 || s1 == 0) return 0;
    if (s0 != s1) return s0 < s1 ? -1 : 1;
    return t.sizes()[d0] > t.sizes()[d1] ? 1 : 0;
  };
  for (int64_t i = 1; i < nd; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  DimVector strides(static_cast<size_t>(nd));
  int64_t at = 1;
  for (int64_t i = 0; i < nd; ++i) {
    strides[perm[i]] = at;
    if (t.sizes()[perm[i]] > 1) at *= t.sizes()[perm[i]];
  }
  return strides;
}

Tensor empty_with_layout_of(const Tensor& t, ScalarType dtype, std::optional<MemoryFormat> mf, Device device) {
  if (mf == MemoryFormat::ChannelsLast || mf == MemoryFormat::ChannelsLast3d) {
    check_memory_format_rank(t.dim(), *mf);
    return empty_in_format(t.sizes(), *mf, dtype, device);
  }
  bool preserve = !mf || *mf == MemoryFormat::Preserve;
  if (preserve && t.numel() == 0)
    return empty_strided(t.sizes(), t.strides(), dtype, device);  // kept as is, like PyTorch
  // aten keeps any dense layout's strides, a contiguous one's odd strides of size-1 dims included
  if (preserve && (t.is_contiguous() ? !t.strides().equals(memory_format_strides(t.sizes(), MemoryFormat::Contiguous))
                                     : non_overlapping_and_dense(t)))
    return empty_strided(t.sizes(), t.strides(), dtype, device);
  if (preserve && !t.is_contiguous()) return empty_strided(t.sizes(), inferred_dense_strides(t), dtype, device);
  return empty(t.sizes(), dtype, device);
}
Tensor empty_with_layout_of(const Tensor& t, ScalarType dtype, std::optional<MemoryFormat> mf) {
  return empty_with_layout_of(t, dtype, mf, t.device());
}

Tensor in_memory_format(const Tensor& y, MemoryFormat mf) {
  const int64_t rank = mf == MemoryFormat::ChannelsLast ? 4 : mf == MemoryFormat::ChannelsLast3d ? 5 : 0;
  if (rank == 0 || y.dim() != rank) return y;
  if (y.strides().equals(memory_format_strides(y.sizes(), mf))) return y;
  Tensor r = empty_in_format(y.sizes(), mf, y.dtype(), y.device());
  copy_into(r, y);
  return r;
}

Tensor empty_in_format(IntArrayRef sizes, MemoryFormat mf, ScalarType dtype, Device device) {
  if (mf == MemoryFormat::Contiguous) return empty(sizes, dtype, device);
  return empty_strided(sizes, memory_format_strides(sizes, mf), dtype, device);
}

Tensor to_dtype(const Tensor& t, ScalarType dtype) {
  if (t.dtype() == dtype) return t;
  // a uint64 number (wrap_number: its int64 bits) converts to a float type by its value
  if (t.impl()->uint64_number && is_floating(dtype)) return scalar_tensor(number_value(t), dtype);
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

// A fresh copy as aten makes one (clone, _to_copy): a dense input's layout kept through
// empty_strided, any other through empty_like (of the inferred layout, or the memory format asked
// for), then copy_ (nested events).
static Tensor recorded_copy(const Tensor& input, ScalarType dtype, std::optional<MemoryFormat> memory_format) {
  const bool preserve = !memory_format || *memory_format == MemoryFormat::Preserve;
  auto alloc = [&] { return empty_with_layout_of(input, dtype, memory_format); };
  Tensor r =
      preserve && non_overlapping_and_dense(input)
          ? profiler::nested_op("aten::empty_strided", {nullptr, nullptr}, alloc)
          : profiler::nested_op("aten::empty_like", {&input, nullptr}, [&] {
              return profiler::nested_op(preserve ? "aten::empty_strided" : "aten::empty", {nullptr, nullptr}, alloc);
            });
  profiler::nested_op("aten::copy_", {&r, &input, nullptr}, [&] {
    copy_into(r, input);
    return 0;
  });
  return r;
}

// A converted copy (always a new tensor): what Tensor.to(dtype) records in autograd.
Tensor _to_copy(const Tensor& input, std::optional<ScalarType> dtype) {
  return recorded_copy(input, dtype.value_or(input.dtype()), std::nullopt);
}

Tensor to_recorded(const Tensor& t, ScalarType dtype) {
  if (t.dtype() == dtype) return t;
  return profiler::nested_op("aten::to", {&t, nullptr}, [&] {
    return profiler::nested_op("aten::_to_copy", {&t, nullptr}, [&] { return _to_copy(t, dtype); });
  });
}

Tensor clone(const Tensor& input, std::optional<MemoryFormat> memory_format) {
  return recorded_copy(input, input.dtype(), memory_format);
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  const bool channels_last =
      memory_format == MemoryFormat::ChannelsLast || memory_format == MemoryFormat::ChannelsLast3d;
  if (channels_last ? follows_memory_format(self.sizes(), self.strides(), memory_format) : self.is_contiguous())
    return self;
  EMBER_CHECK(memory_format != MemoryFormat::Preserve,
              "preserve memory format is unsupported by the contiguous operator");
  return profiler::nested_op("aten::clone", {&self, nullptr}, [&] { return clone(self, memory_format); });
}

// One value (a 0-d tensor of self's dtype) stored into every element of self.
static void fill_with(const Tensor& self, const Tensor& value) {
  if (self.device().is_meta()) return;  // nothing to store into
  // the fill kernels read the value's bytes from host memory
  const Tensor v = value.device().is_cpu() ? value : to_device(value, cpu_device());
  if (self.numel() > 0 && self.is_contiguous()) {
    fill_contiguous(self, v);
  } else if (self.numel() > 0) {
    // Writing one value through an expanded (overlapping) view is fine for a fill.
    IterSpec spec{"fill_", self, true, DtypeRule::Promote, self.dtype(), false};
    spec.check_overlap = false;
    ElementwiseIter it(spec, {&v});
    backend(self).copy.copy(it);
  }
  self.bump_version();
}

Tensor fill_(const Tensor& self, const Scalar& value) {
  check_inplace(self, "fill_");
  // A number must fit the dtype (PyTorch's checked conversion), unlike a promoted operand --
  // except in aten's one-element fill of a half or bfloat16 tensor, which converts unchecked.
  const bool reduced = self.dtype() == ScalarType::Float16 || self.dtype() == ScalarType::BFloat16;
  if (!(reduced && self.numel() == 1))
    EMBER_DISPATCH_EVERY_TYPE(self.dtype(), "fill_", [&] { (void)value.checked<scalar_t>(); });
  fill_with(self, scalar_tensor(value, self.dtype()));
  return self;
}

Tensor fill_(const Tensor& self, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions.");
  check_no_internal_overlap(self);  // the tensor overload copies, and refuses overlapping targets
  check_inplace(self, "fill_");
  // ... and converts the value as a tensor copy does: unchecked (inf into uint8 is 0, as in PyTorch).
  fill_with(self, value.dtype() == self.dtype() ? value : to_dtype(value, self.dtype()));
  return self;
}

Tensor zero_(const Tensor& self) { return fill_(self, Scalar(int64_t(0))); }

}  // namespace ember
