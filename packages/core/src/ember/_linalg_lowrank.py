"""Randomized low-rank factorizations (Halko, Martinsson & Tropp 2009), svd_lowrank and
pca_lowrank, and the block eigensolver lobpcg (Knyazev 2001) for a few extreme eigenpairs.

The low-rank factorizations draw a Gaussian test matrix from ember's generator (the same stream
as PyTorch's ``randn``) whose image spans an approximate range of A, refined by ``niter``
subspace iterations, each re-orthonormalized by QR; A projected on that basis has a small SVD."""

from __future__ import annotations

from typing import Any

import ember
from ember._tensor import Tensor

__all__ = ["lobpcg", "pca_lowrank", "svd_lowrank"]


def _floating(dtype: Any) -> Any:
    return dtype if dtype in (ember.float16, ember.float32, ember.float64) else ember.float32


def _approximate_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """An orthonormal (m, q) basis of an approximate range of A - M (Halko's Algorithm 4.4)."""
    R = ember.randn(A.shape[-1], q, dtype=_floating(A.dtype))

    def apply(op: Tensor, mean: Tensor | None, X: Tensor) -> Tensor:
        Y = ember.matmul(op, X)
        return Y if mean is None else Y - ember.matmul(mean, X)

    Q = ember.linalg.qr(apply(A, M, R)).Q
    for _ in range(niter):
        Q = ember.linalg.qr(apply(A.mH, None if M is None else M.mH, Q)).Q
        Q = ember.linalg.qr(apply(A, M, Q)).Q
    return Q


def _svd_lowrank(A: Tensor, q: int | None, niter: int | None, M: Tensor | None) -> tuple[Tensor, Tensor, Tensor]:
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:  # work on the tall transpose
        A = A.mH
        M = None if M is None else M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = ember.matmul(Q.mH, A)
    if M is not None:
        B = B - ember.matmul(Q.mH, M)
    U, S, Vh = ember.linalg.svd(B, full_matrices=False)
    U, V = ember.matmul(Q, U), Vh.mH
    return (V, S, U) if wide else (U, S, V)


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2,
                M: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """svd_lowrank(A, q=6, niter=2, M=None) -> tuple

    An approximate truncated SVD ``A - M ≈ U diag(S) V^H`` of rank ``q``, by randomized range
    finding: faster than a full SVD when ``q`` is much smaller than A's dims. The draws come
    from ember's random generator (seed it for repeatable results); ``niter`` power iterations
    sharpen the approximation for slowly decaying spectra.

    Args:
        A (Tensor): the ``(*, m, n)`` input.
        q (int, optional): the rank of the approximation (a bit above the rank wanted).
        niter (int, optional): the number of subspace iterations.
        M (Tensor, optional): subtracted from A (broadcast to its shape), e.g. its mean.

    Returns:
        tuple: ``(U, S, V)`` of shapes ``(*, m, q)``, ``(*, q)``, ``(*, n, q)``.

    Example::

        >>> A = ember.outer(ember.arange(1., 5.), ember.arange(1., 4.))
        >>> U, S, V = ember.svd_lowrank(A, q=2)
        >>> bool(ember.allclose(U[:, :1] * S[:1] @ V[:, :1].T, A, atol=1e-4))
        True
    """
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True,
                niter: int = 2) -> tuple[Tensor, Tensor, Tensor]:
    """pca_lowrank(A, q=None, center=True, niter=2) -> tuple

    Principal component analysis of the rows of ``A`` by ``svd_lowrank`` of A with its column
    means subtracted (when ``center``): ``A @ V[:, :k]`` projects the data on its first ``k``
    principal directions, and ``S**2 / (m - 1)`` are the variances along them.

    Args:
        A (Tensor): the ``(*, m, n)`` data, one observation per row.
        q (int, optional): the number of components, at most ``min(m, n)`` (``min(6, m, n)`` when None).
        center (bool): whether to subtract the column means first.
        niter (int): the number of subspace iterations.

    Returns:
        tuple: ``(U, S, V)`` of shapes ``(*, m, q)``, ``(*, q)``, ``(*, n, q)``.

    Example::

        >>> x = ember.tensor([[1., 2.], [2., 4.], [3., 6.]])
        >>> U, S, V = ember.pca_lowrank(x, q=1)
        >>> round(float(S[0] ** 2 / 2), 4)
        5.0
    """
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)


def _orthonormal_basis(S: Tensor, B: Tensor | None, drop: float) -> Tensor:
    """A B-orthonormal basis of S's columns (SVQB: eigh of the Gram matrix, tiny directions dropped)."""
    G = S.mT @ (S if B is None else B @ S)
    d = G.diagonal().clamp_min(1e-300).rsqrt()
    w, V = ember.linalg.eigh(G * d[:, None] * d[None, :])
    keep = w > drop * w.max()
    return S @ ((d[:, None] * V[:, keep]) * w[keep].rsqrt())


def _lobpcg_one(A: Tensor, B: Tensor | None, X: Tensor, iK: Tensor | None, k: int, niter: int, tol: float,
                largest: bool) -> tuple[Tensor, Tensor]:
    n = X.shape[-1]
    drop = ember.finfo(A.dtype).eps * 10
    a_norm = ember.linalg.matrix_norm(A, 2).item() if A.shape[-1] <= 2000 else A.norm().item()
    b_norm = 1.0 if B is None else ember.linalg.matrix_norm(B, 2).item()

    def rayleigh_ritz(S: Tensor) -> tuple[Tensor, Tensor]:
        w, V = ember.linalg.eigh(S.mT @ A @ S)
        order = w.argsort(descending=largest)[:n]
        return w[order], S @ V[:, order]

    E, X = rayleigh_ritz(_orthonormal_basis(X, B, drop))
    P = None
    for _ in range(niter):
        BX = X if B is None else B @ X
        R = A @ X - BX * E
        err = R.norm(dim=0) / ((a_norm + E.abs() * b_norm) * X.norm(dim=0))
        if bool((err[:k] <= tol).all()):
            break
        W = R if iK is None else iK @ R
        S = ember.cat([X, W] if P is None else [X, W, P], -1)
        E, X_new = rayleigh_ritz(_orthonormal_basis(S, B, drop))
        P = X_new - X @ (X.mT @ (X_new if B is None else B @ X_new))  # the step taken outside span(X)
        X = X_new
    return E[:k], X[:, :k]


def lobpcg(A: Tensor, k: int | None = None, B: Tensor | None = None, X: Tensor | None = None, n: int | None = None,
           iK: Tensor | None = None, niter: int | None = None, tol: float | None = None, largest: bool | None = None,
           method: str | None = None, tracker: Any = None, ortho_iparams: Any = None, ortho_fparams: Any = None,
           ortho_bparams: Any = None) -> tuple[Tensor, Tensor]:
    """lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None, tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None) -> tuple

    The ``k`` largest (or smallest) eigenpairs of the symmetric positive-definite generalized
    problem ``A x = λ B x`` by LOBPCG (Knyazev's locally optimal block preconditioned conjugate
    gradient): each step Rayleigh-Ritz projects A on the span of the current block, its
    (preconditioned) residuals and the previous step, made B-orthonormal by SVQB. It stops when
    every wanted residual is below ``tol`` relative to ``(‖A‖ + |λ| ‖B‖) ‖x‖``.

    Args:
        A (Tensor): the ``(*, m, m)`` symmetric matrix.
        k (int, optional): the number of eigenpairs wanted (1 when None).
        B (Tensor, optional): the symmetric positive-definite ``(*, m, m)`` matrix of the generalized problem.
        X (Tensor, optional): the ``(*, m, n)`` initial block (random when None).
        n (int, optional): the block size when ``X`` is None (``k`` when None); ``m`` must be at least ``3 n``.
        iK (Tensor, optional): the ``(*, m, m)`` preconditioner applied to the residuals.
        niter (int, optional): the most iterations (1000 when None or 0).
        tol (float, optional): the residual tolerance (the square root of the dtype's epsilon when None).
        largest (bool, optional): largest eigenvalues (default) or smallest.
        method (str, optional): accepted for PyTorch's signature (``"basic"`` / ``"ortho"``).
        tracker (Callable, optional): accepted for PyTorch's signature.
        ortho_iparams (dict, optional): accepted for PyTorch's signature.
        ortho_fparams (dict, optional): accepted for PyTorch's signature.
        ortho_bparams (dict, optional): accepted for PyTorch's signature.

    Returns:
        tuple: ``(E, X)``: the ``(*, k)`` eigenvalues (largest first, or smallest first) and the
        ``(*, m, k)`` eigenvectors.

    Example::

        >>> A = ember.diag(ember.arange(1., 13., dtype=ember.float64))
        >>> E, X = ember.lobpcg(A, k=2)
        >>> [round(v, 4) for v in E.tolist()]
        [12.0, 11.0]
    """  # noqa: E501  (the signature line autodoc reads must be one line)
    if A.shape[-1] != A.shape[-2]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    m = A.shape[-1]
    k = 1 if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x "
                         f"the number of requested eigenpairs (={n})")
    dtype = _floating(A.dtype)
    tol = ember.finfo(dtype).eps ** 0.5 if tol is None else tol
    niter = niter or 1000
    largest = True if largest is None else largest
    batch = A.shape[:-2]
    if X is None:
        X = ember.randn(*batch, m, n, dtype=dtype)
    flat = [t if t is None else t.expand(*batch, *t.shape[-2:]).reshape(-1, *t.shape[-2:]) for t in (A, B, X, iK)]
    results = [_lobpcg_one(flat[0][i], None if B is None else flat[1][i], flat[2][i].to(dtype),
                           None if iK is None else flat[3][i], k, niter, tol, largest)
               for i in range(flat[0].shape[0])]
    E = ember.stack([r[0] for r in results]).reshape(*batch, k)
    V = ember.stack([r[1] for r in results]).reshape(*batch, m, k)
    return E, V

