"""Randomized low-rank factorizations (Halko, Martinsson & Tropp 2009): svd_lowrank and
pca_lowrank. A Gaussian test matrix drawn from ember's generator (the same stream as PyTorch's
``randn``) spans an approximate range of A, refined by ``niter`` subspace iterations, each
re-orthonormalized by QR; A projected on that basis has a small SVD."""

from __future__ import annotations

from typing import Any

import ember
from ember._tensor import Tensor

__all__ = ["pca_lowrank", "svd_lowrank"]


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
    """svd_lowrank(A, q=6, niter=2, M=None) -> (Tensor, Tensor, Tensor)

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
    """pca_lowrank(A, q=None, center=True, niter=2) -> (Tensor, Tensor, Tensor)

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
