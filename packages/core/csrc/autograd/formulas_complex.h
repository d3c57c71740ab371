// Derivative helpers for the complex ops (ops/complex.yaml), built from ag:: ops.
#pragma once
#include "../core/scalar.h"
#include "../core/tensor.h"

namespace ember {

// The conjugate computed into new memory (conj_physical; a real tensor itself): what formulas
// mean by conj(x). Python's conj is the lazy view conj_view (ops/complex.yaml).
Tensor conj(const Tensor& self);

// complex(real, imag)'s backward: the real and imaginary parts of the complex gradient.
Tensor complex_grad_real(const Tensor& grad);
Tensor complex_grad_imag(const Tensor& grad);

// PyTorch's handle_r_to_c: a real input's gradient is the real part of a complex one.
Tensor handle_r_to_c(ScalarType input_type, const Tensor& grad);
// The conjugate of a Python number (alpha of add / sub); a real one as it is.
Scalar conj_scalar(const Scalar& s);
// angle's backward: 0 for real x; grad * x / |x|^2 * 1j for complex x (0 at x == 0).
Tensor angle_backward(const Tensor& grad, const Tensor& self);
// sign(x) of a real x, sgn(x) (x / |x|, 0 at 0) of a complex one (norms' gradients).
Tensor sign_or_sgn(const Tensor& x);
// abs's backward: grad * sign(x) for real x, grad * sgn(x) (x / |x|, 0 at 0) for complex x.
Tensor abs_backward(const Tensor& grad, const Tensor& input);

// acosh's backward (aten's, with its complex form).
Tensor acosh_backward(const Tensor& grad, const Tensor& self);
// polar(abs, angle)'s backward (aten's polar_backward), one input each.
Tensor polar_grad_abs(const Tensor& grad, const Tensor& result);
Tensor polar_grad_angle(const Tensor& grad, const Tensor& result);

}  // namespace ember
