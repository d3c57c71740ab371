"""LU with partial pivoting: torch.linalg.lu_factor / lu_factor_ex / lu / lu_solve and
torch.lu_unpack. getrf runs in C++ (linalg_factor.cpp); the gradient of the packed factor is
an autograd.Function here, and everything downstream (unpack, solve) composes differentiable ops."""

from __future__ import annotations

import math
from typing import Any

import ember
from ember._lib import _C
from ember.autograd.function import Function
from ember.linalg._common import _legacy as legacy_name
from ember.linalg._common import copy_out, return_type

_lu_factor_t = return_type("linalg_lu_factor", ["LU", "pivots"])
_lu_factor_ex_t = return_type("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_lu_t = return_type("linalg_lu", ["P", "L", "U"])
_lu_unpack_t = return_type("lu_unpack", ["P", "L", "U"])


def _tri_solve(A: ember.Tensor, B: ember.Tensor, upper: bool, left: bool = True,
               unit: bool = False) -> ember.Tensor:
    return ember.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit)


def _lu_backward(LU: ember.Tensor, perm: ember.Tensor, g: ember.Tensor) -> ember.Tensor:
    """Gradient of A = P L U through the packed factor (m x n, k = min(m, n)).

    With X = L^-1 P^T dA U^-1 on the square part, dL = L X.tril(-1) and dU = X.triu() U, so
    grad A = P L^-H phi U^-H for phi = (L^H gL).tril(-1) + (gU U^H).triu() (H: T when real). A wide A's extra
    columns U2 = L^-1 P^T A2 move gL by -L^-T gU2 U2^T; a tall A's extra rows L2 = A2 U^-1
    move gU by -L2^T gL2 U^-T (the same rule transposed)."""
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    gL, gU = g[..., :, :k].tril(-1), g[..., :k, :].triu()
    L1 = LU[..., :k, :k].tril(-1) + ember.eye(k, dtype=LU.dtype, device=LU.device)
    U1 = LU[..., :k, :k].triu()
    phi_l = L1.mH.matmul(gL[..., :k, :])
    phi_u = gU[..., :, :k].matmul(U1.mH)
    if n > k:  # wide: U = [U1 U2]
        U2 = LU[..., :k, k:]
        phi_l = phi_l - gU[..., :, k:].matmul(U2.mH)
    if m > k:  # tall: L = [L1; L2]
        L2 = LU[..., k:, :k]
        phi_u = phi_u - L2.mH.matmul(gL[..., k:, :])
    phi = phi_l.tril(-1) + phi_u.triu()
    top = _tri_solve(U1.mH, _tri_solve(L1.mH, phi, upper=True, unit=True), upper=False, left=False)
    if n > k:
        top = ember.cat([top, _tri_solve(L1.mH, gU[..., :, k:], upper=True, unit=True)], -1)
    if m > k:
        top = ember.cat([top, _tri_solve(U1.mH, gL[..., k:, :], upper=False, left=False)], -2)
    # rows of P^T A are A[perm]: scatter them back
    inv = perm.argsort(-1)
    return top.gather(-2, inv.unsqueeze(-1).expand(*inv.shape, top.shape[-1]))


class _LUFactor(Function):
    @staticmethod
    def forward(ctx: Any, A: ember.Tensor) -> Any:
        LU, piv, info = _C._linalg_lu_factor_ex(A)
        ctx.mark_non_differentiable(piv, info)
        ctx.save_for_backward(LU, piv)
        return LU, piv, info

    @staticmethod
    def backward(ctx: Any, g: ember.Tensor, _gp: Any, _gi: Any) -> ember.Tensor:
        LU, piv = ctx.saved_tensors
        return _lu_backward(LU, _C._linalg_lu_perm(piv, LU.shape[-2]), g)


# grad_fn named as PyTorch's node
_LUFactor._backward_cls.__name__ = _LUFactor._backward_cls.__qualname__ = "LinalgLuFactorExBackward0"


def _factor(A: Any, pivot: bool, name: str) -> tuple[ember.Tensor, ember.Tensor, ember.Tensor]:
    if not isinstance(A, ember.Tensor):
        raise TypeError(f"linalg_{name}(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    if A.requires_grad and ember.is_grad_enabled():
        return _LUFactor.apply(A)
    return _C._linalg_lu_factor_ex(A)


def _raise_singular(info: ember.Tensor, name: str, batched: bool) -> None:
    bad = (info > 0).reshape(-1)
    if info.numel() and bool(bad.any()):
        b = int(bad.to(ember.int64).argmax())
        i = int(info.reshape(-1)[b])
        pre = f"(Batch element {b}): " if batched else ""
        raise RuntimeError(f"torch.linalg.{name}: {pre}U[{i},{i}] is zero and using it on lu_solve would result in "
                           "a division by zero. If you still want to perform the factorization, consider calling "
                           "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def lu_factor_ex(A: ember.Tensor, *, pivot: bool = True, check_errors: bool = False, out: Any = None) -> Any:
    """lu_factor_ex(A, *, pivot=True, check_errors=False, out=None) -> (Tensor, Tensor, Tensor)

    The LU factorisation with partial pivoting of ``A``, in LAPACK's packed form, with LAPACK's
    ``info`` per matrix instead of an error for a singular matrix.

    Args:
        A (Tensor): ``(*, m, n)`` float32 or float64 matrices.
        pivot (bool): must be True on the CPU (LU without pivoting is not implemented there).
        check_errors (bool): raise a RuntimeError when some ``info`` is non-zero.
        out (tuple, optional): three tensors for the results.

    Returns:
        (Tensor, Tensor, Tensor): a named tuple ``(LU, pivots, info)``: ``LU`` holds ``L`` (unit
        diagonal not stored) below the diagonal and ``U`` on and above it, ``pivots`` the 1-based
        row interchanges (int32, ``(*, min(m, n))``), ``info`` 0 or the order of a zero pivot.

    Example::

        >>> r = ember.linalg.lu_factor_ex(ember.tensor([[1., 2.], [2., 4.]]))
        >>> r.pivots, r.info
        (tensor([2, 2], dtype=torch.int32), tensor(2, dtype=torch.int32))
    """
    LU, piv, info = _factor(A, pivot, "lu_factor_ex")
    if check_errors:
        _raise_singular(info, "lu_factor_ex", A.dim() > 2)
    return copy_out(_lu_factor_ex_t(LU, piv, info), out)


def lu_factor(A: ember.Tensor, *, pivot: bool = True, out: Any = None) -> Any:
    """lu_factor(A, *, pivot=True, out=None) -> (Tensor, Tensor)

    The LU factorisation with partial pivoting of ``A`` in LAPACK's packed form, for
    ``ember.linalg.lu_solve`` and ``ember.lu_unpack``; a singular square matrix raises.

    Args:
        A (Tensor): ``(*, m, n)`` float32 or float64 matrices.
        pivot (bool): must be True on the CPU.
        out (tuple, optional): two tensors for the results.

    Returns:
        (Tensor, Tensor): a named tuple ``(LU, pivots)``; ``A = P L U`` for ``ember.lu_unpack(LU, pivots)``.

    Example::

        >>> LU, pivots = ember.linalg.lu_factor(ember.tensor([[1., 2.], [3., 4.]]))
        >>> pivots
        tensor([2, 2], dtype=torch.int32)
    """
    LU, piv, info = _factor(A, pivot, "lu_factor")
    _raise_singular(info, "lu_factor", A.dim() > 2)
    return copy_out(_lu_factor_t(LU, piv), out)


def _perm_matrix(perm: ember.Tensor, dtype: Any) -> ember.Tensor:
    """P = I[:, perm] (P[r, i] = 1 where perm[i] = r)."""
    m = perm.shape[-1]
    return (perm.unsqueeze(-2) == ember.arange(m, device=perm.device).unsqueeze(-1)).to(dtype)


def lu_unpack(LU_data: ember.Tensor, LU_pivots: ember.Tensor, unpack_data: bool = True,
              unpack_pivots: bool = True, *, out: Any = None) -> Any:
    """lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None) -> (Tensor, Tensor, Tensor)

    Splits the packed LU factorisation of ``ember.linalg.lu_factor`` into the permutation ``P``,
    the unit lower-trapezoidal ``L`` and the upper-trapezoidal ``U`` with ``A = P L U``.

    Args:
        LU_data (Tensor): ``(*, m, n)`` packed factors.
        LU_pivots (Tensor): ``(*, min(m, n))`` int32 pivots.
        unpack_data (bool): compute ``L`` and ``U`` (else they are empty).
        unpack_pivots (bool): compute ``P`` (else it is empty).
        out (tuple, optional): three tensors for the results.

    Returns:
        (Tensor, Tensor, Tensor): a named tuple ``(P, L, U)``.

    Example::

        >>> P, L, U = ember.lu_unpack(*ember.linalg.lu_factor(ember.tensor([[1., 2.], [3., 4.]])))
        >>> P
        tensor([[0., 1.],
                [1., 0.]])
    """
    if LU_data.dim() < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    if LU_pivots.dtype != ember.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    empty = ember.empty((0,), dtype=LU_data.dtype, device=LU_data.device)
    L = U = P = empty
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + ember.eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
        U = LU_data[..., :k, :].triu()
    if unpack_pivots:
        piv = LU_pivots
        if piv.dim() and bool(((piv < 1) | (piv > m)).any()):
            raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                               "Did you properly pass the result of lu_factor?")
        batch = tuple(LU_data.shape[:-2])
        piv = piv.expand(*batch, piv.shape[-1]) if piv.dim() else piv.expand(*batch, 0)
        P = _perm_matrix(_C._linalg_lu_perm(piv, m), LU_data.dtype)
    return copy_out(_lu_unpack_t(P, L, U), out)


def lu(A: ember.Tensor, *, pivot: bool = True, out: Any = None) -> Any:
    """lu(A, *, pivot=True, out=None) -> (Tensor, Tensor, Tensor)

    The LU factorisation with partial pivoting ``A = P L U``: ``P`` a permutation, ``L`` unit
    lower-trapezoidal ``(*, m, k)``, ``U`` upper-trapezoidal ``(*, k, n)`` for ``k = min(m, n)``.
    A singular matrix does not raise; differentiable.

    Args:
        A (Tensor): ``(*, m, n)`` float32 or float64 matrices.
        pivot (bool): must be True on the CPU.
        out (tuple, optional): three tensors for the results.

    Returns:
        (Tensor, Tensor, Tensor): a named tuple ``(P, L, U)``.

    Example::

        >>> P, L, U = ember.linalg.lu(ember.tensor([[1., 2.], [3., 4.]]))
        >>> U
        tensor([[3.0000, 4.0000],
                [0.0000, 0.6667]])
    """
    LU, piv, _ = _factor(A, pivot, "lu")
    P, L, U = lu_unpack(LU, piv)
    return copy_out(_lu_t(P, L, U), out)


def _solve_checks(LU: Any, pivots: Any, B: Any, left: bool) -> None:
    if LU.dim() < 2:
        raise RuntimeError("torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions.")
    if not (LU.is_floating_point() or LU.is_complex()):
        raise RuntimeError("torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got "
                           f"{_legacy(LU)}")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but they are "
                           f"{LU.shape[-2]} by {LU.shape[-1]} matrices")
    if B.dim() < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if LU.dtype != B.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{_legacy(LU)} and B of type {_legacy(B)} instead")
    if pivots.dtype != ember.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if pivots.dim() == 0:  # PyTorch reads pivots.size(-1)
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if pivots.shape[-1] != n:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError("linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots "
                           f"with shape {list(pivots.shape)} instead")


def _check_pivot_range(pivots: Any, n: int) -> None:
    """aten's kernel refuses pivots outside [1, n] (LAPACK would write outside B), for a non-empty result."""
    if bool((pivots <= 0).any()):
        raise RuntimeError("Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the "
                           "result of lu_factor?")
    if bool((pivots > n).any()):
        raise RuntimeError("Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly "
                           "pass the result of lu_factor?")


def _legacy(t: ember.Tensor) -> str:
    return legacy_name(t.dtype)


def lu_solve(LU: ember.Tensor, pivots: ember.Tensor, B: ember.Tensor, *, left: bool = True, adjoint: bool = False,
             out: Any = None) -> ember.Tensor:
    """lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None) -> Tensor

    Solves ``A X = B`` from the LU factorisation of ``A`` given by ``ember.linalg.lu_factor``;
    ``left=False`` solves ``X A = B``, ``adjoint=True`` uses ``A^H`` in place of ``A``. Batch
    dimensions broadcast; differentiable in ``LU`` and ``B``.

    Args:
        LU (Tensor): ``(*, n, n)`` packed factors.
        pivots (Tensor): ``(*, n)`` int32 pivots.
        B (Tensor): ``(*, n, k)`` right-hand sides (``(*, k, n)`` when ``left=False``).
        left (bool): solve ``A X = B`` (True) or ``X A = B``.
        adjoint (bool): solve with ``A^H``.
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor: the solution ``X``, of the broadcast batch shape.

    Example::

        >>> A = ember.tensor([[3., 1.], [1., 2.]])
        >>> LU, pivots = ember.linalg.lu_factor(A)
        >>> ember.linalg.lu_solve(LU, pivots, ember.tensor([[9.], [8.]]))
        tensor([[2.],
                [3.]])
    """
    _solve_checks(LU, pivots, B, left)
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return copy_out(lu_solve(LU, pivots, B.mH, adjoint=not adjoint).mH, out)
    n = LU.shape[-1]
    batch = ember.broadcast_shapes(tuple(LU.shape[:-2]), tuple(B.shape[:-2]))
    if math.prod(batch) * B.shape[-2] * B.shape[-1]:
        _check_pivot_range(pivots, n)
    LU = LU.expand(*batch, n, n)
    B = B.expand(*batch, *B.shape[-2:])
    if not (ember.is_grad_enabled() and (LU.requires_grad or B.requires_grad)):
        return copy_out(_C._linalg_lu_solve(LU, pivots.expand(*batch, n), B, adjoint), out)
    # differentiable path: permute, then two triangular solves (autograd through them)
    perm = _C._linalg_lu_perm(pivots.expand(*batch, n), n)
    idx = perm.unsqueeze(-1).expand(*batch, n, B.shape[-1])
    if not adjoint:  # X = U^-1 L^-1 P^T B, (P^T B)[i] = B[perm[i]]
        Y = _tri_solve(LU, B.gather(-2, idx), upper=False, unit=True)
        X = _tri_solve(LU, Y, upper=True)
    else:  # A^H X = B: X = P L^-H U^-H B
        Y = _tri_solve(LU.mH, B, upper=False)
        Y = _tri_solve(LU.mH, Y, upper=True, unit=True)
        inv = perm.argsort(-1).unsqueeze(-1).expand(*batch, n, B.shape[-1])
        X = Y.gather(-2, inv)  # (P Y)[perm[i]] = Y[i]
    return copy_out(X, out)
