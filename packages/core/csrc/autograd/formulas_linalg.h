// Derivative helpers for the linalg ops (ops/linalg.yaml), built from ag:: ops.
#pragma once
#include <string_view>

#include "../core/tensor.h"

namespace ember {

bool solve_is_vector(const Tensor& A, const Tensor& B);  // linalg.solve's vector-B rule
Tensor inv_backward(const Tensor& grad, const Tensor& inv);
Tensor det_backward(const Tensor& grad, const Tensor& A, const Tensor& det);
Tensor slogdet_backward(const TensorList& grads, const Tensor& A);
Tensor solve_backward_A(const Tensor& grad, const Tensor& A, const Tensor& B, const Tensor& X, bool left);
Tensor solve_backward_B(const Tensor& grad, const Tensor& A, const Tensor& B, bool left);
Tensor solve_triangular_backward_A(const Tensor& grad, const Tensor& A, const Tensor& X, bool upper, bool left,
                                   bool unitriangular);
Tensor solve_triangular_backward_B(const Tensor& grad, const Tensor& A, bool upper, bool left, bool unitriangular);
Tensor cholesky_backward(const Tensor& grad, const Tensor& L, bool upper);
Tensor eigh_backward(const TensorList& grads, const Tensor& L, const Tensor& V);
// PyTorch's linalg_eig_backward (formulas_linalg_eig.cpp); a real A gets the real part.
Tensor eig_backward(const TensorList& grads, ScalarType A_type, const Tensor& L, const Tensor& V);
Tensor svd_backward(const TensorList& grads, const Tensor& U, const Tensor& S, const Tensor& Vh);
Tensor svd_backward_list(const TensorList& grads, const Tensor& A, bool full_matrices);
Tensor svdvals_backward(const Tensor& grad, const Tensor& A);
Tensor qr_backward(const TensorList& grads, const Tensor& Q, const Tensor& R, std::string_view mode);

}  // namespace ember
