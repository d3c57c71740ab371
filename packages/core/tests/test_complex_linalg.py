"""Complex64 / complex128 through torch.linalg against PyTorch 2.13 (issue 22 point 4): inv, det,
slogdet, solve, cholesky, eigh / eigvalsh, svd / svdvals, qr, lu_factor / lu / lu_solve,
solve_triangular, geqrf / householder_product / orgqr / ormqr, ldl_factor(_ex) / ldl_solve (complex
symmetric and Hermitian) and the functions built on them (pinv, matrix_exp, matrix_rank, matrix_power,
cond); values, result dtypes, errors, and gradients in PyTorch's convention (z.grad = dL/dx +
i dL/dy for a real loss L), each compared with torch's and checked by ember.autograd.gradcheck in
complex128. Eigenvectors and singular vectors are defined up to a phase per column: they are
compared through phase-invariant quantities, as PyTorch's own tests do."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from sibling import load

torch = pytest.importorskip("torch")

CDTYPES = ["complex64", "complex128"]
RNG = np.random.default_rng(22)


def cmat(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def hpd(*shape: int) -> np.ndarray:
    """Hermitian positive-definite matrices."""
    a = cmat(*shape)
    return a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])


def herm(*shape: int) -> np.ndarray:
    a = cmat(*shape)
    return (a + np.conj(np.swapaxes(a, -1, -2))) / 2


A3, B3, H3, P3 = cmat(3, 3), cmat(3, 2), herm(3, 3), hpd(3, 3)
AB, PB = cmat(2, 4, 4), hpd(2, 3, 3)
TALL, WIDE = cmat(5, 3), cmat(3, 5)


def both(a: np.ndarray, dtype: str = "complex128") -> tuple:
    return (ember.from_numpy(a.copy()).to(getattr(ember, dtype)), torch.from_numpy(a.copy()).to(getattr(torch, dtype)))


same = load("torch_compare").same


def run(lib, fn, *arrays, dtype="complex128"):
    xs = [lib.from_numpy(a.copy()).to(getattr(lib, dtype)) for a in arrays]
    return fn(lib, *xs)


# op name -> (fn(lib, *xs) returning one tensor or a tuple compared element-wise, inputs)
VALUE_CASES = {
    "inv": (lambda L, a: L.linalg.inv(a), [A3]),
    "inv_batch": (lambda L, a: L.linalg.inv(a), [AB]),
    "det": (lambda L, a: L.linalg.det(a), [A3]),
    "det_batch": (lambda L, a: L.linalg.det(a), [AB]),
    "slogdet": (lambda L, a: tuple(L.linalg.slogdet(a)), [AB]),
    "logdet": (lambda L, a: L.logdet(L.linalg.matmul(a, a.mH)), [A3]),
    "solve": (lambda L, a, b: L.linalg.solve(a, b), [A3, B3]),
    "solve_vec": (lambda L, a, b: L.linalg.solve(a, b[:, 0]), [A3, B3]),
    "solve_right": (lambda L, a, b: L.linalg.solve(a, b.mT, left=False), [A3, B3]),
    "solve_bcast": (lambda L, a, b: L.linalg.solve(a, b), [AB, cmat(4, 2)]),
    "cholesky": (lambda L, a: L.linalg.cholesky(a), [PB]),
    "cholesky_upper": (lambda L, a: L.linalg.cholesky(a, upper=True), [P3]),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a), [H3]),
    "eigvalsh_U": (lambda L, a: L.linalg.eigvalsh(a, UPLO="U"), [cmat(4, 4)]),
    "eigh_recon": (lambda L, a: (lambda w, v: (w, v @ L.diag_embed(w.to(v.dtype)) @ v.mH, v.abs()))(*L.linalg.eigh(a)),
                   [H3]),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), [TALL]),
    "svd_full_recon": (lambda L, a: (lambda u, s, vh: (s, u.abs(), vh.abs(), (u[:, :3] * s.to(u.dtype)) @ vh))(
        *L.linalg.svd(a)), [TALL]),
    "svd_reduced_wide": (lambda L, a: (lambda u, s, vh: (s, (u * s.to(u.dtype)) @ vh, vh.abs()))(
        *L.linalg.svd(a, full_matrices=False)), [WIDE]),
    "qr": (lambda L, a: tuple(L.linalg.qr(a)), [TALL]),
    "qr_complete": (lambda L, a: tuple(L.linalg.qr(a, mode="complete")), [TALL]),
    "qr_wide_r": (lambda L, a: L.linalg.qr(a, mode="r")[1], [WIDE]),
    "lu_factor": (lambda L, a: tuple(L.linalg.lu_factor(a)), [AB]),
    "lu": (lambda L, a: tuple(L.linalg.lu(a)), [TALL]),
    "lu_solve": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b), [A3, B3]),
    "lu_solve_adjoint": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True), [A3, B3]),
    "lu_solve_right": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b.mT, left=False), [A3, B3]),
    "solve_triangular": (lambda L, a, b: L.linalg.solve_triangular(a.triu(), b, upper=True), [A3, B3]),
    "solve_triangular_right": (lambda L, a, b: L.linalg.solve_triangular(a, b.mT, upper=False, left=False,
                                                                         unitriangular=True), [A3, B3]),
    "pinv": (lambda L, a: L.linalg.pinv(a), [TALL]),
    "pinv_hermitian": (lambda L, a: L.linalg.pinv(a, hermitian=True), [H3]),
    "matrix_rank": (lambda L, a: L.linalg.matrix_rank(a), [TALL]),
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(a), [A3]),
    "matrix_exp_big": (lambda L, a: L.linalg.matrix_exp(a * 4), [AB]),
    "matrix_power_neg": (lambda L, a: L.linalg.matrix_power(a, -2), [A3]),
    "cond": (lambda L, a: L.linalg.cond(a), [A3]),
    "matrix_norm_2": (lambda L, a: L.linalg.matrix_norm(a, ord=2), [A3]),
    "matrix_norm_nuc": (lambda L, a: L.linalg.matrix_norm(a, ord="nuc"), [A3]),
    "inverse": (lambda L, a: L.inverse(a), [A3]),
    "torch_det": (lambda L, a: L.det(a), [A3]),
    "cholesky_solve": (lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a)), [P3, B3]),
    "cholesky_solve_upper": (lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a, upper=True), upper=True),
                             [P3, B3]),
    "cholesky_inverse": (lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a)), [P3]),
    "lstsq": (lambda L, a, b: L.linalg.lstsq(a, b[:3].repeat(2, 1)[:5]).solution, [TALL, B3]),
    "torch_svd": (lambda L, a: (lambda u, s, v: (s, (u * s.to(u.dtype)) @ v.mH))(*L.svd(a)), [TALL]),
    "lu_unpack": (lambda L, a: tuple(L.lu_unpack(*L.linalg.lu_factor(a))), [WIDE]),
    "tensorinv": (lambda L, a: L.linalg.tensorinv(a.reshape(4, 2, 2), ind=1), [cmat(4, 4)]),
    "multi_dot": (lambda L, a, b: L.linalg.multi_dot([a, a.mH, b]), [A3, B3]),
    "geqrf": (lambda L, a: tuple(L.geqrf(a)), [TALL]),
    "geqrf_batch_wide": (lambda L, a: tuple(L.geqrf(a)), [cmat(2, 3, 4)]),
    "householder_product_geqrf": (lambda L, a: L.linalg.householder_product(*L.geqrf(a)), [TALL]),
    "householder_product": (lambda L, a, t: L.linalg.householder_product(a, t), [TALL, cmat(2)]),
    "householder_product_batch": (lambda L, a, t: L.linalg.householder_product(a, t), [cmat(2, 4, 3), cmat(2, 3)]),
    "orgqr": (lambda L, a: L.orgqr(*L.geqrf(a)), [A3]),
    "ormqr": (lambda L, a, b: L.ormqr(*L.geqrf(a), b), [A3, B3]),
    "ormqr_transpose": (lambda L, a, b: L.ormqr(*L.geqrf(a), b, transpose=True), [A3, B3]),
    "ormqr_right": (lambda L, a, b: L.ormqr(*L.geqrf(a), b.mT, left=False), [A3, B3]),
    "ormqr_right_transpose": (lambda L, a, b: L.ormqr(*L.geqrf(a), b.mT, left=False, transpose=True), [A3, B3]),
    "ldl_factor_symmetric": (lambda L, a: tuple(L.linalg.ldl_factor(a + a.mT)), [cmat(5, 5)]),
    "ldl_factor_hermitian": (lambda L, a: tuple(L.linalg.ldl_factor(a + a.mH, hermitian=True)), [cmat(5, 5)]),
    "ldl_factor_ex_batch": (lambda L, a: tuple(L.linalg.ldl_factor_ex(a + a.mT)), [cmat(3, 4, 4)]),
    "ldl_factor_ex_hermitian_batch": (lambda L, a: tuple(L.linalg.ldl_factor_ex(a + a.mH, hermitian=True)),
                                      [cmat(3, 4, 4)]),
    "ldl_solve": (lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a + a.mT), b), [A3, B3]),
    "ldl_solve_hermitian": (lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a + a.mH, hermitian=True), b,
                                                               hermitian=True), [A3, B3]),
    "ldl_solve_bcast": (lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a + a.mT), b), [AB, cmat(4, 2)]),
    "ldl_conj_view": (lambda L, a: tuple(L.linalg.ldl_factor((a + a.mT).conj(), hermitian=False)), [A3]),
}


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values(name: str, dtype: str) -> None:
    fn, arrays = VALUE_CASES[name]
    e, t = run(ember, fn, *arrays, dtype=dtype), run(torch, fn, *arrays, dtype=dtype)
    if not isinstance(t, tuple):
        e, t = (e,), (t,)
    assert len(e) == len(t)
    for a, b in zip(e, t, strict=True):
        same(a, b)


# Real losses of complex results, phase-invariant where the factor is defined up to a phase.
def wsum(L, out):
    """A real loss touching both parts of a complex output."""
    w = L.arange(1, out.numel() + 1, dtype=L.float64).reshape(out.shape) / out.numel()
    if out.is_complex():
        return (L.view_as_real(out.resolve_conj()) * w.unsqueeze(-1) * L.tensor([1.0, -0.5], dtype=L.float64)).sum()
    return (out * w.to(out.dtype)).sum()


GRAD_CASES = {
    "inv": (lambda L, a: L.linalg.inv(a), [A3]),
    "det": (lambda L, a: L.linalg.det(a), [A3]),
    "slogdet_logabs": (lambda L, a: L.linalg.slogdet(a)[1], [A3]),
    "slogdet_sign": (lambda L, a: L.linalg.slogdet(a)[0], [A3]),
    "solve": (lambda L, a, b: L.linalg.solve(a, b), [A3, B3]),
    "solve_vec": (lambda L, a, b: L.linalg.solve(a, b[:, 0]), [A3, B3]),
    "solve_right": (lambda L, a, b: L.linalg.solve(a, b.mT, left=False), [A3, B3]),
    "cholesky": (lambda L, a: L.linalg.cholesky(a @ a.mH + 3 * L.eye(3, dtype=a.dtype)), [A3]),
    "cholesky_upper": (lambda L, a: L.linalg.cholesky(a @ a.mH + 3 * L.eye(3, dtype=a.dtype), upper=True), [A3]),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a + a.mH), [A3]),
    "eigh_vectors": (lambda L, a: (lambda w, v: v @ L.diag_embed(w.exp().to(v.dtype)) @ v.mH)(
        *L.linalg.eigh(a + a.mH)), [A3]),
    "eigh_abs": (lambda L, a: L.linalg.eigh(a + a.mH)[1].abs(), [A3]),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), [TALL]),
    "svd_recon_tall": (lambda L, a: (lambda u, s, vh: (u * s.exp().to(u.dtype)) @ vh)(
        *L.linalg.svd(a, full_matrices=False)), [TALL]),
    "svd_recon_wide": (lambda L, a: (lambda u, s, vh: (u * s.exp().to(u.dtype)) @ vh)(
        *L.linalg.svd(a, full_matrices=False)), [WIDE]),
    "svd_u_abs": (lambda L, a: L.linalg.svd(a, full_matrices=False)[0].abs(), [A3]),
    "qr_tall": (lambda L, a: (lambda q, r: q + r.sum() * 0.1)(*L.linalg.qr(a)), [TALL]),
    "qr_r": (lambda L, a: L.linalg.qr(a)[1], [A3]),
    "qr_wide": (lambda L, a: (lambda q, r: q.sum() + r)(*L.linalg.qr(a)), [WIDE]),
    "lu_factor": (lambda L, a: L.linalg.lu_factor(a)[0], [A3]),
    "lu_wide": (lambda L, a: L.linalg.lu(a)[2], [WIDE]),
    "lu_tall": (lambda L, a: L.linalg.lu(a)[1], [TALL]),
    "lu_solve": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b), [A3, B3]),
    "lu_solve_adjoint": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True), [A3, B3]),
    "solve_triangular": (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), [A3 + 3 * np.eye(3), B3]),
    "solve_triangular_right": (lambda L, a, b: L.linalg.solve_triangular(a + 3 * L.eye(3, dtype=a.dtype), b.mT,
                                                                         upper=False, left=False), [A3, B3]),
    "pinv": (lambda L, a: L.linalg.pinv(a), [TALL]),
    "pinv_hermitian": (lambda L, a: L.linalg.pinv(a + a.mH, hermitian=True), [A3]),
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(a), [A3]),
    "matrix_power_neg": (lambda L, a: L.linalg.matrix_power(a, -2), [A3]),
    "householder_product": (lambda L, a, t: L.linalg.householder_product(a, t), [TALL, cmat(2)]),
    "householder_product_square": (lambda L, a, t: L.linalg.householder_product(a, t), [A3, cmat(3)]),
    "ormqr": (lambda L, a, t, b: L.ormqr(a, t, b, transpose=True), [A3, cmat(3), B3]),
}


def grads(lib, fn, arrays):
    xs = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
    wsum(lib, fn(lib, *xs)).backward()
    return [x.grad for x in xs]


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients(name: str) -> None:
    fn, arrays = GRAD_CASES[name]
    arrays = [np.asarray(a, dtype=np.complex128) for a in arrays]
    for e, t in zip(grads(ember, fn, arrays), grads(torch, fn, arrays), strict=True):
        same(e, t, rtol=1e-6, atol=1e-7)
    xs = [ember.from_numpy(a.copy()).requires_grad_() for a in arrays]
    assert ember.autograd.gradcheck(lambda *v: fn(ember, *v), xs, eps=1e-6, atol=1e-5, rtol=1e-4)


def test_result_dtypes() -> None:
    for dt, real in (("complex64", "float32"), ("complex128", "float64")):
        e, _ = both(H3, dt)
        assert str(ember.linalg.eigvalsh(e).dtype).endswith(real)
        assert str(ember.linalg.slogdet(e).logabsdet.dtype).endswith(real)
        assert str(ember.linalg.slogdet(e).sign.dtype).endswith(dt)
        assert str(ember.linalg.svdvals(e).dtype).endswith(real)
        assert str(ember.linalg.svd(e).U.dtype).endswith(dt)


def test_singular_and_not_positive_definite() -> None:
    sing = np.array([[1 + 1j, 2 + 2j], [1 + 1j, 2 + 2j]])
    for lib in (ember, torch):
        e = lib.from_numpy(sing.copy())
        with pytest.raises(lib.linalg.LinAlgError, match="singular"):
            lib.linalg.inv(e)
        with pytest.raises(lib.linalg.LinAlgError, match="singular"):
            lib.linalg.solve(e, e)
        with pytest.raises(lib.linalg.LinAlgError, match="not positive-definite"):
            lib.linalg.cholesky(-lib.from_numpy(P3.copy()))
    e, t = both(sing)
    same(ember.linalg.det(e), torch.linalg.det(t))
    for a, b in zip(ember.linalg.slogdet(e), torch.linalg.slogdet(t), strict=True):
        same(a, b)
    ie, it = ember.linalg.inv_ex(e), torch.linalg.inv_ex(t)
    assert ie.info.tolist() == it.info.tolist()


def test_conjugate_view_inputs() -> None:
    e, t = both(A3)
    same(ember.linalg.inv(e.conj()), torch.linalg.inv(t.conj()))
    same(ember.linalg.solve(e.conj(), e), torch.linalg.solve(t.conj(), t))
    same(ember.linalg.det(e.conj()), torch.linalg.det(t.conj()))


def test_mixed_dtypes_refused() -> None:
    e, t = both(A3)
    for lib, a in ((ember, e), (torch, t)):
        with pytest.raises(RuntimeError, match="same dtype"):
            lib.linalg.solve(a, a.real)


def test_empty() -> None:
    for shape in ((0, 0), (2, 0, 0)):
        e, t = both(np.zeros(shape, dtype=np.complex128))
        same(ember.linalg.inv(e), torch.linalg.inv(t))
        same(ember.linalg.det(e), torch.linalg.det(t))
        same(ember.linalg.eigvalsh(e), torch.linalg.eigvalsh(t))
        same(ember.linalg.svdvals(e), torch.linalg.svdvals(t))
        for a, b in zip(ember.linalg.qr(e), torch.linalg.qr(t), strict=True):
            same(a, b)


def test_phase_dependent_losses_refused() -> None:
    """A loss that reads an eigenvector's or singular vector's phase is ill-defined (PyTorch's check)."""
    for lib in (ember, torch):
        a = lib.from_numpy(H3.copy()).requires_grad_()
        with pytest.raises(RuntimeError, match="specified up to multiplication by e\\^{i phi}"):
            lib.linalg.eigh(a)[1].real.sum().backward()
        b = lib.from_numpy(A3.copy()).requires_grad_()
        with pytest.raises(RuntimeError, match="specified up to multiplication by e\\^{i phi}"):
            lib.linalg.svd(b)[0].imag.sum().backward()


def test_ldl_and_householder_dtype_checks_like_torch() -> None:
    """Complex inputs pass the checks that refused them; mismatched and integer dtypes still raise."""
    for lib in (ember, torch):
        a = lib.from_numpy(A3.copy())
        with pytest.raises(RuntimeError, match="same dtype"):
            lib.linalg.ldl_solve(*lib.linalg.ldl_factor(a + a.mT), a.real)
        with pytest.raises(RuntimeError, match="tau dtype"):
            lib.linalg.householder_product(a, a[:, 0].real)
        with pytest.raises(RuntimeError, match="floating point or complex"):
            lib.linalg.ldl_factor(lib.ones(2, 2, dtype=lib.int64))
