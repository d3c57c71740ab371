// The complex dtypes' own ops (ops/complex.yaml): view_as_real / view_as_complex (views that
// reinterpret a complex element as two reals), complex / polar (build a complex tensor from
// two real ones), conj_physical and angle; their loops are the backend table's
// ComplexKernels::from_parts / conj / angle, over dense buffers.
#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/complex_ops.h"
#include "ops/core/internal.h"

namespace ember {

namespace {

// complex()/polar()'s argument rule (aten's complex_check_dtype): both float, the same dtype.
void check_parts(const Tensor& a, const Tensor& b) {
  auto ok = [](ScalarType t) {
    return t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64;
  };
  EMBER_CHECK(ok(a.dtype()) && ok(b.dtype()), "Expected both inputs to be Half, Float or Double tensors but got ",
              legacy_name(a.dtype()), " and ", legacy_name(b.dtype()));
  EMBER_CHECK(a.dtype() == b.dtype(), "Expected object of scalar type ", legacy_name(a.dtype()),
              " but got scalar type ", legacy_name(b.dtype()), " for second argument");
}

// complex(a, b) (polar(a, b)) over the broadcast shape: a complex result from two real parts.
Tensor from_parts(const Tensor& a, const Tensor& b, bool polar) {
  check_parts(a, b);
  DimVector shape = broadcast_shapes(a.sizes(), b.sizes());  // aten's iterator: shapes before its dtype
  // aten's polar kernel has no float16 form; complex() of two float16 parts is complex32
  if (polar && a.dtype() == ScalarType::Float16) dtype_not_implemented("polar_cpu", a.dtype());
  const ScalarType ct = to_complex_type(a.dtype());
  Tensor ac = contiguous(expand(a, shape), MemoryFormat::Contiguous);
  Tensor bc = contiguous(expand(b, shape), MemoryFormat::Contiguous);
  Tensor r = empty(shape, ct, a.device());
  backend(r).complex.from_parts(ct, ac.raw(), bc.raw(), r.raw(), r.numel(), polar);
  return r;
}

// complex() / polar()'s out= check (aten's complex_check_dtype): exactly the inputs' complex type,
// before the result is made.
void check_parts_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  check_parts(a, b);
  const ScalarType want = to_complex_type(a.dtype());
  EMBER_CHECK(out.dtype() == want, "Expected object of scalar type ", legacy_name(want), " but got scalar type ",
              legacy_name(out.dtype()), " for argument 'out'");
}

Tensor into_out(const Tensor& r, const Tensor& out) {
  check_cast(r.dtype(), out.dtype());
  resize_out(out, r.sizes());
  copy_into(out, r);
  return out;
}

}  // namespace

Tensor view_as_real(const Tensor& self) {
  EMBER_CHECK(is_complex(self.dtype()), "view_as_real is only supported for complex tensors");
  EMBER_CHECK(!self.impl()->conj,
              "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor so you can "
              "view it as real, use self.resolve_conj(); however, be warned that the resulting tensor will NOT alias "
              "the original.");
  DimVector sizes = to_vec(self.sizes()), strides = to_vec(self.strides());
  for (auto& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  Tensor v = make_view(self, sizes, strides, self.offset() * 2);
  v.impl()->dtype = to_real_type(self.dtype());
  return v;
}

Tensor view_as_complex(const Tensor& self) {
  const ScalarType t = self.dtype();
  EMBER_CHECK(t == ScalarType::Float32 || t == ScalarType::Float64 || t == ScalarType::Float16,
              "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: ",
              legacy_name(t));
  EMBER_CHECK(self.dim() != 0, "Input tensor must have one or more dimensions");
  EMBER_CHECK(self.size(-1) == 2, "Tensor must have a last dimension of size 2");
  EMBER_CHECK(self.stride(-1) == 1, "Tensor must have a last dimension with stride 1");
  DimVector sizes = to_vec(self.sizes()), strides = to_vec(self.strides());
  sizes.resize(sizes.size() - 1);
  strides.resize(strides.size() - 1);
  for (size_t i = 0; i < strides.size(); ++i) {
    auto& s = strides[i];
    // a dim of size 1 never steps: aten halves its stride (rounding down) without the check
    EMBER_CHECK(sizes[i] == 1 || s % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension");
    s /= 2;
  }
  EMBER_CHECK(self.offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  const ScalarType ct = to_complex_type(t);
  Tensor v = make_view(self, sizes, strides, self.offset() / 2);
  v.impl()->dtype = ct;
  return v;
}

Tensor complex(const Tensor& real, const Tensor& imag) { return from_parts(real, imag, false); }
Tensor complex_out(const Tensor& real, const Tensor& imag, const Tensor& out) {
  check_parts_out(real, imag, out);
  return into_out(complex(real, imag), out);
}

Tensor polar(const Tensor& abs, const Tensor& angle) { return from_parts(abs, angle, true); }
Tensor polar_out(const Tensor& abs, const Tensor& angle, const Tensor& out) {
  check_parts_out(abs, angle, out);
  return into_out(polar(abs, angle), out);
}

Tensor conj_physical(const Tensor& self) {
  if (!is_complex(self.dtype())) return self;  // as PyTorch: the tensor itself
  // A contiguous input is read once; another is first cloned densely (numel elements in one block).
  const bool direct = self.is_contiguous();
  Tensor src = direct ? self : clone(self, MemoryFormat::Preserve);
  Tensor r = direct ? empty(self.sizes(), self.dtype(), self.device()) : src;
  backend(r).complex.conj(r.dtype(), src.raw(), r.raw(), r.numel());
  return r;
}
Tensor conj_physical_(const Tensor& self) {
  check_inplace(self, "conj_physical_");
  if (!is_complex(self.dtype())) return self;
  copy_into(self, conj_physical(self));
  self.bump_version();
  return self;
}
Tensor conj_physical_out(const Tensor& self, const Tensor& out) {
  check_no_internal_overlap(out);  // aten's iterator: the overlap check before the dtype and the resize
  check_out_exact(out.dtype(), self.dtype());
  resize_out(out, self.sizes());
  copy_into(out, conj_physical(self));
  return out;
}

// PyTorch's angle: arg(z) for complex, and for real x: pi below zero, NaN for NaN, else 0
// (integers compute in the default float dtype).
Tensor angle(const Tensor& self) {
  const ScalarType t = self.dtype();
  if (t == ScalarType::ComplexHalf) dtype_not_implemented("angle_cpu", t);  // aten has no complex32 angle
  if (is_complex(t)) {
    Tensor x = contiguous(self, MemoryFormat::Contiguous);
    Tensor r = empty(self.sizes(), to_real_type(t), self.device());
    backend(r).complex.angle(t, x.raw(), r.raw(), r.numel());
    return r;
  }
  const ScalarType rt = is_floating(t) ? t : default_dtype();
  Tensor x = contiguous(to_dtype(self, rt), MemoryFormat::Contiguous);
  Tensor r = empty(self.sizes(), rt, self.device());
  backend(r).complex.angle(rt, x.raw(), r.raw(), r.numel());
  return r;
}
Tensor angle_out(const Tensor& self, const Tensor& out) {
  // aten's TensorIterator checks the written tensor's overlaps before anything else; a complex
  // input is computed into a temporary first and copied into out= (resized), unchecked
  if (!is_complex(self.dtype())) {
    check_no_internal_overlap(out);
    check_no_overlap(out, self);
  }
  return into_out(angle(self), out);
}

Tensor complex_abs_op(const Tensor& out, bool inplace, const Tensor& input) {
  EMBER_CHECK(!inplace, "In-place abs is not supported for complex tensors.");
  Tensor x = contiguous(input, MemoryFormat::Contiguous);
  Tensor r = empty(input.sizes(), to_real_type(input.dtype()), input.device());
  backend(x).complex.abs(x, r);
  return out.defined() ? into_out(r, out) : r;
}

}  // namespace ember
