"""Householder reflectors in LAPACK's compact form: torch.geqrf (the C++ kernel), and
householder_product / orgqr / ormqr composed from differentiable ops through the compact WY form
H_1 ... H_k = I - V T V^H (V the unit lower-trapezoidal vectors, T upper triangular with
T = (I + diag(tau) triu(V^H V, 1))^-1 diag(tau), which also holds where some tau is zero; V^H is
V^T for real dtypes)."""

from __future__ import annotations

from typing import Any

import ember
from ember._lib import _C
from ember.linalg._common import _legacy, copy_out, return_type

_geqrf_t = return_type("geqrf", ["a", "tau"])


def _wy(A: ember.Tensor, tau: ember.Tensor, rows: int) -> tuple[ember.Tensor, ember.Tensor]:
    """(V, T) of the reflectors in A's first k = tau.shape[-1] columns, V of ``rows`` rows."""
    k = tau.shape[-1]
    V = A[..., :rows, :k].tril(-1) + ember.eye(rows, k, dtype=A.dtype, device=A.device)
    S = V.mH.matmul(V).triu(1)
    M = ember.eye(k, dtype=A.dtype, device=A.device) + tau.unsqueeze(-1) * S
    D = ember.diag_embed(tau)
    if ember.is_grad_enabled() and (A.requires_grad or tau.requires_grad):
        return V, ember.linalg.solve_triangular(M, D, upper=True, unitriangular=True)
    # no gradient: M is its own LU factorisation (unit upper, no pivoting): the trsm kernel directly
    piv = ember.arange(1, k + 1, dtype=ember.int32, device=A.device).expand(*M.shape[:-1])
    return V, _C._linalg_lu_solve(M, piv, D, False)


def _check_kernel(A: ember.Tensor, name: str) -> None:
    if A.dtype not in (ember.float32, ember.float64, ember.complex64, ember.complex128):
        raise NotImplementedError(f"\"{name}\" not implemented for '{_legacy(A.dtype)}'")


def householder_product(A: ember.Tensor, tau: ember.Tensor, *, out: Any = None) -> ember.Tensor:
    """householder_product(A, tau, *, out=None) -> Tensor

    The first ``n`` columns of the product of the Householder reflectors ``H_1`` to ``H_k``,
    ``H_i = I - tau_i v_i v_i^H``, ``v_i`` stored below the diagonal of ``A``'s column ``i``
    (the form ``ember.geqrf`` returns). Differentiable in ``A`` and ``tau``.

    Args:
        A (Tensor): ``(*, m, n)`` reflector vectors, ``m >= n``.
        tau (Tensor): ``(*, k)`` scales, ``k <= n``.
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor: ``(*, m, n)`` matrices with orthonormal columns when ``(A, tau)`` come from geqrf.

    Example::

        >>> a, tau = ember.geqrf(ember.tensor([[3., 1.], [4., 2.]]))
        >>> ember.linalg.householder_product(a, tau).abs()
        tensor([[0.6000, 0.8000],
                [0.8000, 0.6000]])
    """
    name = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if tau.dim() < 1:
        raise RuntimeError(f"{name}: tau must have at least 1 dimension.")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if n < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.dim() != A.dim() - 1 or tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{name}: tau dtype {_legacy(tau.dtype)} does not match input dtype {_legacy(A.dtype)}")
    _check_kernel(A, "orgqr_cpu")
    if tau.shape[-1] == 0:
        Q = ember.eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape).clone()
        return copy_out(Q, out)
    V, T = _wy(A, tau, m)
    Q = ember.eye(m, n, dtype=A.dtype, device=A.device) - V.matmul(T.matmul(V[..., :n, :].mH))
    return copy_out(Q, out)


def orgqr(input: ember.Tensor, tau: ember.Tensor, *, out: Any = None) -> ember.Tensor:
    """orgqr(input, tau, *, out=None) -> Tensor

    ``ember.linalg.householder_product`` under LAPACK's name: the explicit ``Q`` of a ``geqrf``
    result.

    Args:
        input (Tensor): ``(*, m, n)`` reflector vectors, ``m >= n``.
        tau (Tensor): ``(*, k)`` scales, ``k <= n``.
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor: ``(*, m, n)`` the product's first ``n`` columns.

    Example::

        >>> a, tau = ember.geqrf(ember.eye(2))
        >>> ember.orgqr(a, tau).abs()
        tensor([[1., 0.],
                [0., 1.]])
    """
    return householder_product(input, tau, out=out)


def geqrf(input: ember.Tensor, *, out: Any = None) -> Any:
    """geqrf(input, *, out=None) -> (Tensor, Tensor)

    The QR factorisation in LAPACK's compact form: ``R`` on and above the diagonal of ``a``, the
    Householder vectors below it and their scales in ``tau`` (see ``ember.linalg.householder_product``
    and ``ember.ormqr``). Not differentiable, as in PyTorch.

    Args:
        input (Tensor): ``(*, m, n)`` float32, float64, complex64 or complex128 matrices.
        out (tuple, optional): two tensors for the results.

    Returns:
        (Tensor, Tensor): a named tuple ``(a, tau)``, ``tau`` of shape ``(*, min(m, n))``.

    Example::

        >>> a, tau = ember.geqrf(ember.tensor([[3., 1.], [4., 2.]]))
        >>> a[0, 0].abs()
        tensor(5.)
    """
    if input.dim() >= 2:
        _check_kernel(input, "geqrf_cpu")
    return copy_out(_geqrf_t(*_C._linalg_geqrf(input)), out)


def ormqr(input: ember.Tensor, tau: ember.Tensor, other: ember.Tensor, left: bool = True, transpose: bool = False,
          *, out: Any = None) -> ember.Tensor:
    """ormqr(input, tau, other, left=True, transpose=False, *, out=None) -> Tensor

    Multiplies ``other`` by the ``Q`` of Householder reflectors in the compact ``(input, tau)``
    form of ``ember.geqrf``, without forming ``Q``: ``Q C`` (``left``), ``C Q`` otherwise, with
    ``Q^T`` when ``transpose``. Differentiable in all three tensors.

    Args:
        input (Tensor): ``(*, mn, k)`` reflector vectors.
        tau (Tensor): ``(*, min(mn, k))`` scales.
        other (Tensor): ``(*, m, n)`` matrices, ``mn`` = ``m`` when ``left`` else ``n``.
        left (bool): multiply from the left.
        transpose (bool): use ``Q^H`` (``Q^T`` for real dtypes).
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor: the product, of ``other``'s shape.

    Example::

        >>> a, tau = ember.geqrf(ember.tensor([[3., 1.], [4., 2.]]))
        >>> ember.ormqr(a, tau, ember.eye(2)).abs()
        tensor([[0.6000, 0.8000],
                [0.8000, 0.6000]])
    """
    name = "torch.ormqr"
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    mn = other.shape[-2] if left else other.shape[-1]
    side = "other.shape[-2]" if left else "other.shape[-1]"
    if mn != input.shape[-2]:
        raise RuntimeError(f"{name}: {side} must be equal to input.shape[-2]")
    if tau.shape[-1] != min(mn, input.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min({side}, input.shape[-1])")
    if input.dim() != tau.dim() + 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal "
                           f"to {tau.dim()} and input.ndim is equal to {input.dim()}")
    if input.dim() != other.dim():
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {other.dim()} and input.ndim is equal to {input.dim()}")
    if tau.dtype != input.dtype:
        raise RuntimeError(f"{name}: Expected input and tau to have the same dtype, but input has dtype"
                           f"{_legacy(input.dtype)} and tau has dtype {_legacy(tau.dtype)}")
    if other.dtype != input.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but input has dtype"
                           f"{_legacy(input.dtype)} and other has dtype {_legacy(other.dtype)}")
    _check_kernel(input, "ormqr_cpu")
    if tau.shape[-1] == 0:
        return copy_out(other.clone(), out)
    V, T = _wy(input, tau, mn)
    if transpose:  # Q^H = I - V T^H V^H
        T = T.mH
    if left:  # Q C = C - V (T (V^H C))
        R = other - V.matmul(T.matmul(V.mH.matmul(other)))
    else:  # C Q = C - ((C V) T) V^H
        R = other - other.matmul(V).matmul(T).matmul(V.mH)
    return copy_out(R, out)
