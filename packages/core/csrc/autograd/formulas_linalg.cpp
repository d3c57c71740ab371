// PyTorch's derivative formulas for the LAPACK-backed linalg ops, written with
// ag:: ops so that double backward works. Constant masks / selection matrices
// stand in for tril, diagonal and narrow (multiplying by a constant is differentiable).
#include "../iter/elementwise_iter.h"
#include "autograd_ops.h"
#include "engine.h"
#include "formulas.h"
#include "formulas_complex.h"
#include "ops.h"
#include "ops/core/internal.h"

namespace ember {

namespace {
const Scalar kOne(int64_t(1));

Tensor mT(const Tensor& x) { return ag::transpose(x, -2, -1); }
// The conjugate transpose: PyTorch's formulas read mH, which is mT for a real x.
Tensor mH(const Tensor& x) { return is_complex(x.dtype()) ? mT(conj(x)) : mT(x); }
Tensor conj_if(const Tensor& x) { return is_complex(x.dtype()) ? conj(x) : x; }
Tensor tmm(const Tensor& a, const Tensor& b) { return ag::matmul(a, b); }
Tensor tadd(const Tensor& a, const Tensor& b) { return ag::add(a, b, kOne); }
Tensor tsub(const Tensor& a, const Tensor& b) { return ag::sub(a, b, kOne); }
Tensor tmul(const Tensor& a, const Tensor& b) { return ag::mul(a, b); }
Tensor tdiv(const Tensor& a, const Tensor& b) { return ag::div(a, b, std::nullopt); }
Tensor num(double v) { return wrap_scalar(Scalar(v)); }

// The constant matrices below are made on `on`'s device (the formula's operands').
Tensor eye_of(int64_t n, int64_t m, ScalarType dt, const Tensor& on) { return eye(n, m, dt, on.device()); }

// Constant n x n matrix: `below` under the diagonal, `diag` on it, `above` over it.
Tensor tri_mask(int64_t n, double below, double diag, double above, ScalarType dt, const Tensor& on) {
  Tensor t = empty({n, n}, ScalarType::Float64, std::nullopt, std::nullopt);
  double* p = t.data<double>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) p[i * n + j] = i > j ? below : i == j ? diag : above;
  return to_device(to_dtype(t, dt), on.device());
}

// Constant n x k matrix selecting columns [off, off + k) of an (., n) matrix: X @ sel.
Tensor col_select(int64_t n, int64_t off, int64_t k, ScalarType dt, const Tensor& on) {
  Tensor t = zeros({n, k}, ScalarType::Float64, std::nullopt);
  double* p = t.data<double>();
  for (int64_t i = 0; i < k; ++i) p[(off + i) * k + i] = 1.0;
  return to_device(to_dtype(t, dt), on.device());
}

Tensor embed_diag(const Tensor& v) {  // (..., n) -> (..., n, n)
  int64_t n = v.sizes()[v.dim() - 1];
  return tmul(ag::unsqueeze(v, -1), eye_of(n, n, v.dtype(), v));
}

// Zeros shaped (batch of `like`..., m, n): the gradient when no output had one.
Tensor zero_grad(const Tensor& like, int64_t m, int64_t n) {
  DimVector s;
  for (int64_t i = 0; i + 2 < like.dim(); ++i) s.push_back(like.sizes()[i]);
  s.push_back(m);
  s.push_back(n);
  return zeros(s, like.dtype(), like.device());
}

Tensor skew(const Tensor& x) { return tsub(x, mH(x)); }
Tensor bcast_mat(const Tensor& g) { return ag::unsqueeze(ag::unsqueeze(g, -1), -1); }
}  // namespace

Tensor inv_backward(const Tensor& grad, const Tensor& inv) {
  Tensor it = mH(inv);
  return ag::neg(tmm(tmm(it, grad), it));
}

// d det / dA = det * A^{-T}; for a singular A the cofactor matrix comes from the SVD:
// det(U) det(Vh) U diag(prod_{j != i} s_j) Vh.
Tensor det_backward(const Tensor& grad, const Tensor& A, const Tensor& det) {
  try {
    return tmul(bcast_mat(tmul(grad, conj_if(det))), mH(ag::linalg_inv(A)));
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::LinAlg) throw;
  }
  TensorList usv = ag::linalg_svd(A, false);
  const Tensor &U = usv[0], &S = usv[1], &Vh = usv[2];
  int64_t n = S.sizes()[S.dim() - 1];
  Tensor I = eye_of(n, n, S.dtype(), S);
  Tensor others = tadd(tmul(ag::unsqueeze(S, -2), tri_mask(n, 1.0, 0.0, 1.0, S.dtype(), S)), I);
  Tensor P = ag::prod(others, -1, false, std::nullopt);
  Tensor sign = conj_if(tmul(ag::linalg_det(U), ag::linalg_det(Vh)));
  Tensor cof = tmm(tmul(U, ag::unsqueeze(P, -2)), Vh);
  return tmul(bcast_mat(tmul(grad, sign)), cof);
}

Tensor slogdet_backward(const TensorList& grads, const Tensor& A) {
  // A real sign is piecewise constant: only logabsdet contributes. A complex sign's gradient adds
  // i Im(gsign conj(sign)) = (z - conj(z)) / 2, z = gsign conj(sign) (PyTorch's slogdet_backward).
  Tensor g = grads.size() > 1 ? grads[1] : Tensor();
  if (is_complex(A.dtype()) && grads[0].defined()) {
    Tensor z = tmul(grads[0], conj(std::get<0>(ag::linalg_slogdet(A))));
    Tensor t = tmul(tsub(z, conj(z)), num(0.5));
    g = g.defined() ? tadd(t, g) : t;
  }
  if (!g.defined()) return zeros_like_grad(A);
  return tmul(bcast_mat(g), mH(ag::linalg_inv(A)));
}

Tensor solve_backward_B(const Tensor& grad, const Tensor& A, const Tensor& B, bool left) {
  return sum_to(ag::linalg_solve(mH(A), grad, left), B.sizes());
}

Tensor solve_backward_A(const Tensor& grad, const Tensor& A, const Tensor& B, const Tensor& X, bool left) {
  Tensor gB = ag::linalg_solve(mH(A), grad, left);
  Tensor gA;
  if (solve_is_vector(A, B)) gA = tmm(ag::unsqueeze(gB, -1), ag::unsqueeze(conj_if(X), -2));
  else gA = left ? tmm(gB, mH(X)) : tmm(mH(X), gB);
  return sum_to(ag::neg(gA), A.sizes());
}

// A X = B: gB = A^-T gX and gA = -gB X^T (X A = B: gB = gX A^-T, gA = -X^T gB), kept to the
// triangle the solve read (without the diagonal when unitriangular).
Tensor solve_triangular_backward_B(const Tensor& grad, const Tensor& A, bool upper, bool left, bool unitriangular) {
  return ag::linalg_solve_triangular(mH(A), grad, !upper, left, unitriangular);
}

Tensor solve_triangular_backward_A(const Tensor& grad, const Tensor& A, const Tensor& X, bool upper, bool left,
                                   bool unitriangular) {
  Tensor gB = solve_triangular_backward_B(grad, A, upper, left, unitriangular);
  Tensor gA = left ? tmm(gB, mH(X)) : tmm(mH(X), gB);
  int64_t k = A.sizes()[A.dim() - 1];
  double d = unitriangular ? 0.0 : -1.0;
  return tmul(gA, tri_mask(k, upper ? 0.0 : -1.0, d, upper ? -1.0 : 0.0, A.dtype(), A));
}

// gA = sym(L^{-T} Phi(L^T gL) L^{-1}), Phi = lower triangle with the diagonal halved.
Tensor cholesky_backward(const Tensor& grad, const Tensor& L0, bool upper) {
  if (is_complex(L0.dtype())) {
    // PyTorch's form: G = tril(L^H gL), gA = L^-H (G + tril(G, -1)^H) / 2 L^-1 (the real branch's
    // symmetrisation would drop Im(diag G)).
    Tensor L = upper ? mH(L0) : L0, gL = upper ? mH(grad) : grad;
    int64_t n = L.sizes()[L.dim() - 1];
    ScalarType rt = to_real_type(L.dtype());
    Tensor G = tmul(tmm(mH(L), gL), tri_mask(n, 1.0, 1.0, 0.0, rt, L));
    Tensor phi = tmul(tadd(G, mH(tmul(G, tri_mask(n, 1.0, 0.0, 0.0, rt, L)))), num(0.5));
    Tensor Li = ag::linalg_inv(L);
    return tmm(tmm(mH(Li), phi), Li);
  }
  Tensor L = upper ? mT(L0) : L0, gL = upper ? mT(grad) : grad;
  int64_t n = L.sizes()[L.dim() - 1];
  Tensor phi = tmul(tmm(mT(L), gL), tri_mask(n, 1.0, 0.5, 0.0, L.dtype(), L));
  Tensor Li = ag::linalg_inv(L);
  Tensor g = tmm(tmm(mT(Li), phi), Li);
  return tmul(tadd(g, mT(g)), num(0.5));
}

// gA = V (offdiag(skew(V^T gV) / 2) / (L_j - L_i) + diag(gL)) V^T
Tensor eigh_backward(const TensorList& grads, const Tensor& L, const Tensor& V) {
  const Tensor& gL = grads[0];
  const Tensor& gV = grads.size() > 1 ? grads[1] : Tensor();
  if (!gV.defined()) {
    if (!gL.defined()) return zeros_like_grad(V);
    return tmm(tmul(V, ag::unsqueeze(gL, -2)), mH(V));
  }
  int64_t n = L.sizes()[L.dim() - 1];
  if (is_complex(V.dtype())) {  // the loss must not depend on each eigenvector's phase (PyTorch's check)
    Tensor im = ember::imag(diagonal(matmul(mH(V), gV), 0, -2, -1));
    EMBER_CHECK(allclose(im, zeros_like_grad(im), 1e-2, 1e-2, false),
                "linalg_eigh_backward: The eigenvectors in the complex case are specified up to multiplication by "
                "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.");
  }
  Tensor I = eye_of(n, n, L.dtype(), L);
  Tensor E = tadd(tsub(ag::unsqueeze(L, -2), ag::unsqueeze(L, -1)), I);  // 1 on the diagonal
  // A is symmetric: only the symmetric part of the perturbation counts (PyTorch's convention).
  Tensor inner = tmul(tdiv(tmul(skew(tmm(mH(V), gV)), num(0.5)), E), tri_mask(n, 1.0, 0.0, 1.0, L.dtype(), L));
  if (gL.defined()) inner = tadd(inner, embed_diag(gL));
  return tmm(tmm(V, inner), mH(V));
}

// PyTorch's svd_backward (full factors are narrowed to k first).
Tensor svd_backward(const TensorList& grads, const Tensor& U0, const Tensor& S, const Tensor& Vh0) {
  Tensor gU = grads[0], gS = grads[1], gVh = grads[2];
  int64_t k = S.sizes()[S.dim() - 1], m = U0.sizes()[U0.dim() - 2], n = Vh0.sizes()[Vh0.dim() - 1];
  ScalarType dt = S.dtype();
  Tensor U = U0, Vh = Vh0;
  if (U0.sizes()[U0.dim() - 1] != k) {
    Tensor sel = col_select(m, 0, k, U0.dtype(), U0);
    U = tmm(U0, sel);
    if (gU.defined()) gU = tmm(gU, sel);
  }
  if (Vh0.sizes()[Vh0.dim() - 2] != k) {
    Tensor sel = mH(col_select(n, 0, k, U0.dtype(), U0));
    Vh = tmm(sel, Vh0);
    if (gVh.defined()) gVh = tmm(sel, gVh);
  }
  if (!gU.defined() && !gVh.defined()) {
    if (!gS.defined()) return zero_grad(U0, m, n);
    return tmm(tmul(U, ag::unsqueeze(gS, -2)), Vh);
  }
  Tensor V = mH(Vh);
  if (is_complex(U.dtype())) {  // the loss must not depend on the singular vectors' phases (PyTorch's check)
    auto imdiag = [&](const Tensor& x) { return ember::imag(diagonal(skew(x), 0, -2, -1)); };
    Tensor iu = gU.defined() ? imdiag(matmul(mH(U), gU)) : zeros_like_grad(S);
    Tensor iv = gVh.defined() ? imdiag(matmul(Vh, mH(gVh))) : zeros_like_grad(S);
    EMBER_CHECK(allclose(iu, neg(iv), 1e-2, 1e-2, false),
                "svd_backward: The singular vectors in the complex case are specified up to multiplication by e^{i "
                "phi}. The specified loss function depends on this phase term, making it ill-defined.");
  }
  Tensor I = eye_of(k, k, dt, S);
  Tensor S2 = tmul(S, S);
  Tensor E = tadd(tsub(ag::unsqueeze(S2, -2), ag::unsqueeze(S2, -1)), I);  // E_jk = S_k^2 - S_j^2
  Tensor Srow = ag::unsqueeze(S, -2), Scol = ag::unsqueeze(S, -1);
  Tensor inner;
  auto acc = [&](const Tensor& t) { inner = inner.defined() ? tadd(inner, t) : t; };
  if (gU.defined()) acc(tmul(tdiv(skew(tmm(mH(U), gU)), E), Srow));
  if (gVh.defined()) acc(tmul(Scol, tdiv(skew(tmm(Vh, mH(gVh))), E)));
  if (gS.defined()) acc(embed_diag(gS));
  // Complex: the phase term diag(U^H gU - (U^H gU)^H) / 2S (PyTorch's svd_backward).
  if (gU.defined() && is_complex(U.dtype()))
    acc(tdiv(tmul(skew(tmm(mH(U), gU)), eye_of(k, k, dt, S)), tmul(Srow, num(2.0))));
  Tensor gA = tmm(tmm(U, inner), Vh);
  if (gU.defined() && m > k) gA = tadd(gA, tmm(tdiv(tsub(gU, tmm(U, tmm(mH(U), gU))), Srow), Vh));
  if (gVh.defined() && n > k) gA = tadd(gA, tmm(tdiv(U, Srow), tsub(gVh, tmm(tmm(gVh, V), Vh))));
  return gA;
}

// The op returns a list, whose formula cannot read the result: the (deterministic)
// factorisation is recomputed, differentiably, for double backward.
Tensor svd_backward_list(const TensorList& grads, const Tensor& A, bool full_matrices) {
  TensorList usv = ag::linalg_svd(A, full_matrices);
  return svd_backward(grads, usv[0], usv[1], usv[2]);
}

Tensor svdvals_backward(const Tensor& grad, const Tensor& A) {
  TensorList usv = ag::linalg_svd(A, false);
  return tmm(tmul(usv[0], ag::unsqueeze(grad, -2)), usv[2]);
}

namespace {
// m >= n: gA = (gQ + Q copyltu(M)) R^{-T}, M = R gR^T - gQ^T Q.
Tensor qr_backward_tall(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  int64_t n = R.sizes()[R.dim() - 1];
  ScalarType dt = R.dtype();
  if (is_complex(dt)) {
    // PyTorch's form: X = gR R^H - Q^H gQ, gA = (gQ + Q syminvadj(triu(X))) R^-H, syminvadj(U) =
    // U + U^H with the real part of its diagonal halved.
    ScalarType rt = to_real_type(dt);
    Tensor X;
    if (gR.defined()) X = tmm(gR, mH(R));
    if (gQ.defined()) X = X.defined() ? tsub(X, tmm(mH(Q), gQ)) : ag::neg(tmm(mH(Q), gQ));
    Tensor Us = tmul(X, tri_mask(n, 0.0, 0.0, 1.0, rt, X)), D = tmul(X, eye_of(n, n, rt, X));
    Tensor sym = tadd(tadd(Us, mH(Us)), tmul(tadd(D, mH(D)), num(0.5)));
    Tensor b = tmm(Q, sym);
    if (gQ.defined()) b = tadd(b, gQ);
    return tmm(b, mH(ag::linalg_inv(R)));
  }
  Tensor M;
  if (gR.defined()) M = tmm(R, mT(gR));
  if (gQ.defined()) M = M.defined() ? tsub(M, tmm(mT(gQ), Q)) : ag::neg(tmm(mT(gQ), Q));
  Tensor low = tmul(M, tri_mask(n, 1.0, 1.0, 0.0, dt, M));
  Tensor sym = tsub(tadd(low, mT(low)), tmul(M, eye_of(n, n, dt, M)));  // copy lower to upper
  Tensor b = tmm(Q, sym);
  if (gQ.defined()) b = tadd(b, gQ);
  return tmm(b, mT(ag::linalg_inv(R)));
}
}  // namespace

Tensor qr_backward(const TensorList& grads, const Tensor& Q, const Tensor& R, std::string_view mode) {
  EMBER_CHECK(mode != "r",
              "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
              "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  int64_t m = Q.sizes()[Q.dim() - 2], n = R.sizes()[R.dim() - 1];
  EMBER_CHECK(mode == "reduced" || m <= n,
              "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  const Tensor& gQ = grads[0];
  const Tensor& gR = grads[1];
  if (!gQ.defined() && !gR.defined()) return zero_grad(R, m, n);
  if (m >= n) return qr_backward_tall(gQ, gR, Q, R);
  // Wide: A = [X | Y] with X = Q U square; R = [U | W].
  ScalarType dt = R.dtype();
  Tensor sx = col_select(n, 0, m, dt, R), sy = col_select(n, m, n - m, dt, R);  // R's dtype: matmul operands
  Tensor U = tmm(R, sx), W = tmm(R, sy);
  Tensor gU = gR.defined() ? tmm(gR, sx) : Tensor(), gW = gR.defined() ? tmm(gR, sy) : Tensor();
  Tensor gQx = gQ;
  if (gW.defined()) {
    Tensor t = tmm(tmm(Q, W), mH(gW));  // Y gW^T with Y = Q W
    gQx = gQx.defined() ? tadd(gQx, t) : t;
  }
  Tensor gX = qr_backward_tall(gQx, gU, Q, U);
  Tensor gA = tmm(gX, mH(sx));
  if (gW.defined()) gA = tadd(gA, tmm(tmm(Q, gW), mH(sy)));
  return gA;
}

}  // namespace ember
