"""torch.linalg functions built on the LAPACK kernels: the *_ex variants, svd's named
tuple, eigvalsh, pinv, matrix_rank and lstsq (differentiable through the kernels)."""

from __future__ import annotations

import re
from typing import Any

import ember
from ember._lib import _C
from ember._out import cast, castable, same_device, write
from ember.linalg._common import check_float, eps, return_type

_svd_t = return_type("linalg_svd", ["U", "S", "Vh"])
_inv_ex_t = return_type("linalg_inv_ex", ["inverse", "info"])
_chol_ex_t = return_type("linalg_cholesky_ex", ["L", "info"])
_solve_ex_t = return_type("linalg_solve_ex", ["result", "info"])
_lstsq_t = return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
# The generated bindings name their structseqs after the bare op ("eigh"); PyTorch's are linalg_*.
_eigh_t = return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])
_qr_t = return_type("linalg_qr", ["Q", "R"])
_slogdet_t = return_type("linalg_slogdet", ["sign", "logabsdet"])


def eigh(A: ember.Tensor, UPLO: str = "L", *, out: Any = None) -> Any:
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix (UPLO triangle)."""
    return write(_eigh_t(*_C._linalg_eigh(A, UPLO)), out, grad="_linalg_eigh", inputs=(A,))


def qr(A: ember.Tensor, mode: str = "reduced", *, out: Any = None) -> Any:
    """A = QR through Householder reflections (LAPACK geqrf / orgqr)."""
    return write(_qr_t(*_C._linalg_qr(A, mode)), out, grad="linalg_qr", inputs=(A,))


def slogdet(A: ember.Tensor, *, out: Any = None) -> Any:
    """(sign, log|det|) from the LU factorisation."""
    return write(_slogdet_t(*_C._linalg_slogdet(A)), out, grad="_linalg_slogdet", inputs=(A,))


def svd(A: ember.Tensor, full_matrices: bool = True, *, driver: str | None = None,
        out: Any = None) -> Any:
    """A = U diag(S) Vh; singular values descending (PyTorch's gesdd conventions)."""
    U, S, Vh = _C._linalg_svd(A, full_matrices)
    return write(_svd_t(U, S, Vh), out, grad="_linalg_svd", inputs=(A,))


def eigvalsh(A: ember.Tensor, UPLO: str = "L", *, out: Any = None) -> ember.Tensor:
    """Eigenvalues (ascending) of a symmetric matrix; differentiable like eigh's."""
    if ember.is_grad_enabled() and isinstance(A, ember.Tensor) and A.requires_grad:  # the gradient needs vectors
        return write(_C._linalg_eigh(A, UPLO)[0], out, grad="_linalg_eigh", inputs=(A,))
    return write(_C._linalg_eigvalsh(A, UPLO), out)


def _infos(fn: Any, A: ember.Tensor, pattern: str) -> ember.Tensor:
    """LAPACK's info per matrix, recovered by running each matrix alone (error path only)."""
    batch = tuple(A.shape[:-2])
    flat = A.reshape(-1, A.shape[-2], A.shape[-1])
    infos = []
    for i in range(flat.shape[0]):
        try:
            fn(flat[i])
            infos.append(0)
        except _C._LinAlgError as e:
            m = re.search(pattern, str(e))
            infos.append(int(m.group(1)) if m else 1)
    return ember.tensor(infos, dtype=ember.int32, device=A.device).reshape(batch)


def _nan_like(A: ember.Tensor) -> ember.Tensor:
    return ember.full(tuple(A.shape), float("nan"), dtype=A.dtype, device=A.device)


def inv_ex(A: ember.Tensor, *, check_errors: bool = False, out: Any = None) -> Any:
    """(inverse, info): info > 0 marks a singular matrix instead of raising (unless check_errors)."""
    return write(_inv_ex(A, check_errors), out, grad="linalg_inv_ex", inputs=(A,))


def _inv_ex(A: ember.Tensor, check_errors: bool) -> Any:
    try:
        return _inv_ex_t(_C._linalg_inv(A), ember.zeros(tuple(A.shape[:-2]), dtype=ember.int32, device=A.device))
    except _C._LinAlgError:
        if check_errors:
            raise
    return _inv_ex_t(_nan_like(A), _infos(_C._linalg_inv, A, r"diagonal element (\d+)"))


def cholesky_ex(A: ember.Tensor, *, upper: bool = False, check_errors: bool = False, out: Any = None) -> Any:
    """(L, info): info > 0 is the order of the first non positive-definite leading minor."""
    return write(_cholesky_ex(A, upper, check_errors), out, grad="linalg_cholesky_ex", inputs=(A,))


def _cholesky_ex(A: ember.Tensor, upper: bool, check_errors: bool) -> Any:
    try:
        return _chol_ex_t(_C._linalg_cholesky(A, upper=upper),
                          ember.zeros(tuple(A.shape[:-2]), dtype=ember.int32, device=A.device))
    except _C._LinAlgError:
        if check_errors:
            raise
    return _chol_ex_t(_nan_like(A), _infos(_C._linalg_cholesky, A, r"minor of order (\d+)"))


def solve_ex(A: ember.Tensor, B: ember.Tensor, *, left: bool = True, check_errors: bool = False,
             out: Any = None) -> Any:
    """(result, info) of linalg.solve; info > 0 for a singular A."""
    return write(_solve_ex(A, B, left, check_errors), out, grad="_linalg_solve_ex", inputs=(A, B))


def _solve_ex(A: ember.Tensor, B: ember.Tensor, left: bool, check_errors: bool) -> Any:
    try:
        X = _C._linalg_solve(A, B, left=left)
        return _solve_ex_t(X, ember.zeros(tuple(A.shape[:-2]), dtype=ember.int32, device=A.device))
    except _C._LinAlgError:
        if check_errors:
            raise
    info = _infos(_C._linalg_inv, A, r"diagonal element (\d+)")
    shape = ember.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]) if B.dim() >= 2 else ())
    res_shape = tuple(shape) + (tuple(B.shape[-2:]) if B.dim() >= 2 else tuple(B.shape))
    return _solve_ex_t(ember.full(res_shape, float("nan"), dtype=A.dtype, device=A.device), info)


def _tolerance(S_max: ember.Tensor, A: ember.Tensor, atol: Any, rtol: Any) -> ember.Tensor:
    """max(atol, rtol * S_max) with PyTorch's defaults (rtol = eps * max(m, n) when neither is set)."""
    m, n = A.shape[-2], A.shape[-1]
    if rtol is None:
        rtol = eps(A.dtype) * max(m, n) if atol is None or (
            not isinstance(atol, ember.Tensor) and atol == 0) else 0.0
    atol = 0.0 if atol is None else atol
    rt = rtol.unsqueeze(-1) if isinstance(rtol, ember.Tensor) else rtol
    at = atol.unsqueeze(-1) if isinstance(atol, ember.Tensor) else atol
    tol = S_max * rt
    if isinstance(at, ember.Tensor):
        return ember.maximum(tol, at.to(tol.dtype))
    return tol.clamp(min=at) if at != 0 else tol


def pinv(A: ember.Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False,
         out: Any = None) -> ember.Tensor:
    """Moore-Penrose pseudo-inverse through the SVD (eigh when hermitian); values <= tol drop out."""
    return write(_pinv(A, atol, rtol, hermitian), out, castable("linalg.pinv"), grad="linalg_pinv", inputs=(A,),
                 device=same_device("linalg.pinv"))


def _pinv(A: ember.Tensor, atol: Any, rtol: Any, hermitian: bool) -> ember.Tensor:
    check_float(A, "linalg.pinv")
    m, n = A.shape[-2], A.shape[-1]
    if m == 0 or n == 0:
        return ember.zeros(tuple(A.shape[:-2]) + (n, m), dtype=A.dtype, device=A.device)
    if hermitian:
        L, V = _C._linalg_eigh(A, "L")
        absL = L.abs()
        tol = _tolerance(absL.amax(-1, keepdim=True), A, atol, rtol)
        keep = absL > tol
        inv = ember.where(keep, 1.0 / ember.where(keep, L, 1.0), 0.0)
        return (V * inv.unsqueeze(-2)).matmul(V.mH)
    U, S, Vh = _C._linalg_svd(A, False)
    tol = _tolerance(S.amax(-1, keepdim=True), A, atol, rtol)
    keep = S > tol
    inv = ember.where(keep, 1.0 / ember.where(keep, S, 1.0), 0.0)
    return (Vh.mH * inv.unsqueeze(-2)).matmul(U.mH)


def matrix_rank(A: ember.Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False,
                tol: Any = None, out: Any = None) -> ember.Tensor:
    """Number of singular values (``|eigenvalues|`` when hermitian) above the tolerance."""
    return write(_matrix_rank(A, atol, rtol, hermitian, tol), out, cast,
                 device=same_device("torch.linalg.matrix_rank"))


def _matrix_rank(A: ember.Tensor, atol: Any, rtol: Any, hermitian: bool, tol: Any) -> ember.Tensor:
    check_float(A, "linalg.matrix_rank")
    if tol is not None:
        atol, rtol = tol, 0.0
    with ember.no_grad():
        if A.shape[-2] == 0 or A.shape[-1] == 0:
            return ember.zeros(tuple(A.shape[:-2]), dtype=ember.int64, device=A.device)
        S = _C._linalg_eigvalsh(A, "L").abs() if hermitian else _C._linalg_svdvals(A)
        t = _tolerance(S.amax(-1, keepdim=True), A, atol, rtol)
        return (S > t).sum(-1)


def lstsq(A: ember.Tensor, B: ember.Tensor, rcond: float | None = None, *, driver: str | None = None) -> Any:
    """Least squares min ||AX - B|| through the pseudo-inverse (minimum-norm solution)."""
    check_float(A, "linalg.lstsq")
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A.dtype} and other's dtype {B.dtype}")
    vec = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vec else B
    m, n = A.shape[-2], A.shape[-1]
    if Bm.shape[-2] != m:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    driver = driver or "gelsy"
    rtol = rcond if rcond is not None and rcond > 0 else eps(A.dtype) * max(m, n)
    X = pinv(A, rtol=rtol).matmul(Bm)
    empty = ember.zeros((0,), dtype=A.dtype, device=A.device)
    rank = matrix_rank(A, rtol=rtol) if driver != "gels" else ember.zeros((0,), dtype=ember.int64, device=A.device)
    full = driver != "gels" and bool((rank == n).all().item()) if m > n else False
    R = A.matmul(X) - Bm
    residuals = ((R.abs() if R.is_complex() else R) ** 2).sum(-2) if (m > n and driver != "gelsy" and (
        driver == "gels" or full)) else empty
    sv = _C._linalg_svdvals(A).detach() if driver in ("gelsd", "gelss") else empty
    if vec:
        X = X.squeeze(-1)
        if residuals.numel():
            residuals = residuals.squeeze(-1)
    return _lstsq_t(X, residuals, rank, sv)
