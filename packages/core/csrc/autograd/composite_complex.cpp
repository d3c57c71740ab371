// Complex ops that aten implements as composites of differentiable ops: real / imag are
// selects of view_as_real (so their gradients flow through ViewAsRealBackward0); conj_view (Python's
// conj) is PyTorch's lazy conjugate view, while C++'s conj (the formulas') computes conj_physical.
// ops/complex.yaml; python/py_conj_fallback.cpp resolves conjugate views for every other op.
#include "autograd/formulas.h"
#include "autograd/formulas_complex.h"
#include "autograd/grad_mode.h"
#include "autograd_ops.h"
#include "core/error.h"
#include "ops.h"

namespace ember {

Tensor real(const Tensor& self) {
  if (!is_complex(self.dtype())) return self;
  if (self.impl()->conj) {  // conjugation keeps real parts: a real view of the stored values
    if (GradMode::is_enabled() && self.requires_grad()) return real(ember::resolve_conj(self));
    return ag::select(ag::view_as_real(physical_alias(self)), -1, 0);
  }
  return ag::select(ag::view_as_real(self), -1, 0);
}

Tensor imag(const Tensor& self) {
  EMBER_CHECK(is_complex(self.dtype()), "imag is not implemented for tensors with non-complex dtypes.");
  return ag::select(ag::view_as_real(self), -1, 1);
}

Tensor conj(const Tensor& self) {
  if (!is_complex(self.dtype())) return self;
  return ag::conj_physical(self);
}

// PyTorch's conj: a view of the same memory with the conjugate bit flipped (conj of a conj view
// is a plain view of its memory); a real tensor itself.
Tensor conj_view(const Tensor& self) {
  if (!is_complex(self.dtype())) return self;
  Tensor v = make_view(self, self.sizes(), self.strides(), self.offset());
  set_conj(v.impl(), !self.impl()->conj);
  return v;
}

// The values in new memory without the bit: one conj_physical pass over the stored values, or
// ag::clone (copy_into conjugates across) where a graph is recorded.
Tensor resolve_conj(const Tensor& self) {
  if (!self.impl()->conj) return self;
  if (GradMode::is_enabled() && self.requires_grad()) return ag::clone(self, std::nullopt);
  return conj_physical(physical_alias(self));
}
Tensor resolve_neg(const Tensor& self) { return self; }
bool is_conj(const Tensor& self) { return self.impl()->conj; }
bool is_neg(const Tensor&) { return false; }

Tensor handle_r_to_c(ScalarType input_type, const Tensor& grad) {
  return !is_complex(input_type) && is_complex(grad.dtype()) ? ember::real(grad) : grad;
}

Scalar conj_scalar(const Scalar& s) {
  return s.is_complex() ? Scalar(std::complex<double>(s.to_double(), -s.imag())) : s;
}

// x / |x| of a complex x, 0 where x is 0 (torch.sgn), through ag:: ops.
static Tensor complex_sgn(const Tensor& x) {
  // complex32 (aten's z / |z| in complex<float>, rounded): through complex64, which rounds the same
  if (x.dtype() == ScalarType::ComplexHalf)
    return _to_copy(complex_sgn(_to_copy(x, ScalarType::ComplexFloat)), ScalarType::ComplexHalf);
  Tensor mag = ag::abs(x);
  Tensor zero = ember::zeros({}, x.dtype(), std::nullopt);
  return ag::where(ember::eq(mag, ember::zeros({}, mag.dtype(), std::nullopt)), zero, ag::div(x, mag));
}

Tensor sign_or_sgn(const Tensor& x) { return is_complex(x.dtype()) ? complex_sgn(x) : ag::sign(x); }

Tensor abs_backward(const Tensor& grad, const Tensor& input) {
  if (!is_complex(input.dtype())) return ag::mul(grad, ag::sign(input));
  return ag::mul(grad, complex_sgn(input));
}

// acosh's backward: aten's 1 / sqrt(x^2 - 1) for reals; for complex x 1 / (sqrt(x + 1) sqrt(x - 1)),
// conjugated (one square root of x^2 - 1 has the wrong sign wherever Re x < 0).
Tensor acosh_backward(const Tensor& grad, const Tensor& self) {
  if (!is_complex(self.dtype())) return ag::div(grad, ag::sqrt(add_s(ag::square(self), -1.0)), std::nullopt);
  Tensor d = ag::mul(ag::sqrt(add_s(self, 1.0)), ag::sqrt(add_s(self, -1.0)));
  return ag::div(grad, conj(d), std::nullopt);
}

// aten's polar_backward: the real parts of conj(grad) sgn(result) and conj(grad) result 1j.
Tensor polar_grad_abs(const Tensor& grad, const Tensor& result) {
  return ember::real(ag::mul(conj(grad), complex_sgn(result)));
}
Tensor polar_grad_angle(const Tensor& grad, const Tensor& result) {
  Tensor r_1j = ag::mul(result, wrap_scalar(Scalar(std::complex<double>(0, 1))));
  return ember::real(ag::mul(conj(grad), r_1j));
}

Tensor angle_backward(const Tensor& grad, const Tensor& self) {
  if (!is_complex(self.dtype())) return ember::zeros_like(self);
  Tensor mag = ag::abs(self);
  Tensor g = ag::mul(ag::div(ag::mul(grad, self), ag::mul(mag, mag)), wrap_scalar(Scalar(std::complex<double>(0, 1))));
  Tensor zero = ember::zeros({}, self.dtype(), std::nullopt);
  return ag::where(ember::eq(self, zero), zero, g);
}

Tensor complex_grad_real(const Tensor& grad) { return is_complex(grad.dtype()) ? ember::real(grad) : grad; }
Tensor complex_grad_imag(const Tensor& grad) {
  return is_complex(grad.dtype()) ? ember::imag(grad) : ember::zeros_like(grad);
}

}  // namespace ember
