// PyTorch's linalg_eig_backward (is_hermitian = false) with ag:: ops, so double backward works.
// ember's LAPACK table solves real systems only: V^-H X is solved as the real system of twice
// the size that a complex one is.
#include "autograd/formulas.h"
#include "autograd/formulas_complex.h"
#include "autograd/formulas_linalg.h"
#include "autograd_ops.h"
#include "ops.h"

namespace ember {

namespace {
const Scalar kOne(int64_t(1));

// X with M X = B (complex M: n x n, B: n x k): [[Re M, -Im M], [Im M, Re M]] [Re X; Im X] = [Re B; Im B].
Tensor complex_solve(const Tensor& M, const Tensor& B) {
  const int64_t n = M.sizes()[M.dim() - 1];
  Tensor Mr = ember::real(M), Mi = ember::imag(M);
  Tensor big = ag::cat({ag::cat({Mr, ag::neg(Mi)}, -1), ag::cat({Mi, Mr}, -1)}, -2);
  Tensor X = ag::linalg_solve(big, ag::cat({ember::real(B), ember::imag(B)}, -2), true);
  return ag::complex(ag::narrow(X, -2, 0, n), ag::narrow(X, -2, n, n));
}
}  // namespace

// gA = V^-H (offdiag((V^H gV - V^H V Re(diag(V^H gV))) / conj(L_j - L_i)) + diag(gL)) V^H
Tensor eig_backward(const TensorList& grads, ScalarType A_type, const Tensor& L, const Tensor& V) {
  const Tensor& gL = grads[0];
  const Tensor gV = grads.size() > 1 ? grads[1] : Tensor();
  if (!gL.defined() && !gV.defined()) return Tensor();  // (the engine calls no node without a gradient)
  Tensor VH = conj(ag::transpose(V, -2, -1));
  if (!gV.defined()) return handle_r_to_c(A_type, complex_solve(VH, ag::mul(ag::unsqueeze(gL, -1), VH)));
  const int64_t n = L.sizes()[L.dim() - 1];
  const ScalarType rt = to_real_type(L.dtype());
  Tensor VhgV = ag::matmul(VH, gV);
  Tensor d = ag::diagonal(VhgV, 0, -2, -1);
  // The loss must not depend on each eigenvector's phase (PyTorch's check and tolerance).
  Tensor im = ember::imag(d);
  EMBER_CHECK(allclose(im, zeros_like_grad(im), 1e-2, 1e-2, false),
              "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by "
              "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.");
  VhgV = ag::sub(VhgV, ag::matmul(VH, ag::mul(V, ag::unsqueeze(ember::real(d), -2))), kOne);
  Tensor I = eye(n, n, rt, L.device());
  Tensor Lc = conj(L);
  Tensor E = ag::add(ag::sub(ag::unsqueeze(Lc, -2), ag::unsqueeze(Lc, -1), kOne), I, kOne);  // 1 on the diagonal
  Tensor ret = ag::div(VhgV, E, std::nullopt);
  if (gL.defined())  // the diagonal is gL (PyTorch copies it in)
    ret = ag::add(ag::mul(ret, ag::rsub(I, wrap_scalar(Scalar(1.0)), kOne)), ag::mul(ag::unsqueeze(gL, -1), I), kOne);
  return handle_r_to_c(A_type, complex_solve(VH, ag::matmul(ret, VH)));
}

}  // namespace ember
