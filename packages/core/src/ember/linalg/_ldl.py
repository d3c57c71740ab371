"""Bunch-Kaufman LDL^T of symmetric (complex: also Hermitian, L D L^H) matrices:
torch.linalg.ldl_factor / ldl_factor_ex / ldl_solve (LAPACK sytrf / sytrs, hetrf / hetrs in
linalg_factor.cpp; no gradient, as in PyTorch)."""

from __future__ import annotations

from typing import Any

import ember
from ember._lib import _C
from ember.linalg._common import _legacy, copy_out, return_type

_ldl_t = return_type("linalg_ldl_factor", ["LD", "pivots"])
_ldl_ex_t = return_type("linalg_ldl_factor_ex", ["LD", "pivots", "info"])


_KERNEL_DTYPES = (ember.float32, ember.float64, ember.complex64, ember.complex128)


def _factor(A: ember.Tensor, hermitian: bool, name: str) -> tuple[ember.Tensor, ember.Tensor, ember.Tensor]:
    if A.dim() < 2:
        raise RuntimeError(f"torch.linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(f"torch.linalg.{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_legacy(A.dtype)}")
    if A.numel() == 0:  # aten returns before its kernel's dtype dispatch: float16 and bfloat16 too
        return (A.clone(), ember.zeros(A.shape[:-1], dtype=ember.int32, device=A.device),
                ember.zeros(A.shape[:-2], dtype=ember.int32, device=A.device))
    if A.dtype not in _KERNEL_DTYPES:
        raise NotImplementedError(f"\"ldl_factor_kernel_cpu\" not implemented for '{_legacy(A.dtype)}'")
    with ember.no_grad():
        return _C._linalg_ldl_factor_ex(A, bool(hermitian))


def _check(info: ember.Tensor, name: str) -> None:
    # PyTorch reports sytrf's info > 0 (an exactly zero D block) as an internal assert
    bad = info.reshape(-1)
    if bad.numel() and bool((bad != 0).any()):
        code = int(bad[(bad != 0).to(ember.int64).argmax()])
        raise RuntimeError(f"torch.linalg.{name}: Unknown error code: {code}.")


def ldl_factor_ex(A: ember.Tensor, *, hermitian: bool = False, check_errors: bool = False, out: Any = None) -> Any:
    """ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None) -> (Tensor, Tensor, Tensor)

    The Bunch-Kaufman factorisation ``A = L D L^T`` of symmetric matrices (read from the lower
    triangle; ``A = L D L^H`` of Hermitian ones) in LAPACK's compact form, with LAPACK's ``info``
    instead of an error.

    Args:
        A (Tensor): ``(*, n, n)`` float32, float64, complex64 or complex128 symmetric matrices.
        hermitian (bool): factor complex matrices as Hermitian (the same for real matrices).
        check_errors (bool): raise when some ``info`` is non-zero.
        out (tuple, optional): three tensors for the results.

    Returns:
        (Tensor, Tensor, Tensor): a named tuple ``(LD, pivots, info)``: ``L`` below the diagonal
        and the 1x1 / 2x2 blocks of ``D`` on it, LAPACK's int32 pivots (negative for a 2x2 block),
        ``info`` > 0 where ``D`` has an exactly zero block.

    Example::

        >>> ember.linalg.ldl_factor_ex(ember.tensor([[4., 2.], [2., 3.]])).LD
        tensor([[4.0000, 0.0000],
                [0.5000, 2.0000]])
    """
    LD, piv, info = _factor(A, hermitian, "ldl_factor_ex")
    if check_errors:
        _check(info, "ldl_factor_ex")
    return copy_out(_ldl_ex_t(LD, piv, info), out)


def ldl_factor(A: ember.Tensor, *, hermitian: bool = False, out: Any = None) -> Any:
    """ldl_factor(A, *, hermitian=False, out=None) -> (Tensor, Tensor)

    The Bunch-Kaufman factorisation ``A = L D L^T`` (Hermitian: ``L D L^H``) of symmetric
    matrices in LAPACK's compact form, for ``ember.linalg.ldl_solve``; an exactly singular ``D``
    raises.

    Args:
        A (Tensor): ``(*, n, n)`` float32, float64, complex64 or complex128 symmetric matrices.
        hermitian (bool): factor complex matrices as Hermitian (the same for real matrices).
        out (tuple, optional): two tensors for the results.

    Returns:
        (Tensor, Tensor): a named tuple ``(LD, pivots)``.

    Example::

        >>> ember.linalg.ldl_factor(ember.tensor([[4., 2.], [2., 3.]])).pivots
        tensor([1, 2], dtype=torch.int32)
    """
    LD, piv, info = _factor(A, hermitian, "ldl_factor_ex")
    _check(info, "ldl_factor")
    return copy_out(_ldl_t(LD, piv), out)


def ldl_solve(LD: ember.Tensor, pivots: ember.Tensor, B: ember.Tensor, *, hermitian: bool = False,
              out: Any = None) -> ember.Tensor:
    """ldl_solve(LD, pivots, B, *, hermitian=False, out=None) -> Tensor

    Solves ``A X = B`` from the LDL^T factorisation of ``ember.linalg.ldl_factor``; the batch
    dimensions of ``LD`` and ``B`` broadcast.

    Args:
        LD (Tensor): ``(*, n, n)`` compact factors.
        pivots (Tensor): ``(*, n)`` integer pivots.
        B (Tensor): ``(*, n, k)`` right-hand sides.
        hermitian (bool): the factors are ``ldl_factor(..., hermitian=True)``'s (the same for real ones).
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor: the solution ``X``.

    Example::

        >>> LD, pivots = ember.linalg.ldl_factor(ember.tensor([[4., 2.], [2., 3.]]))
        >>> ember.linalg.ldl_solve(LD, pivots, ember.tensor([[8.], [7.]]))
        tensor([[1.2500],
                [1.5000]])
    """
    name = "torch.linalg.ldl_solve"
    if LD.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if LD.shape[-1] != LD.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {LD.shape[-2]} by "
                           f"{LD.shape[-1]} matrices")
    if not (LD.is_floating_point() or LD.is_complex()):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_legacy(LD.dtype)}")
    # PyTorch's order: B's dtype, then B's size(-2), then the pivots
    if LD.dtype != B.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_legacy(B.dtype)} and A "
                           f"of type {_legacy(LD.dtype)} instead.")
    if B.dim() == 0:
        raise IndexError("Dimension specified as -2 but tensor has no dimensions")
    if B.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{B.dim()}, {B.dim() - 1}], but got -2)")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots.shape)} instead")
    if pivots.is_floating_point() or pivots.dtype == ember.bool:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {_legacy(pivots.dtype)}")
    if pivots.dtype in (ember.uint16, ember.uint32, ember.uint64):  # aten takes |pivots| first
        raise NotImplementedError(f"\"abs_cpu\" not implemented for '{_legacy(pivots.dtype)}'")
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b matrix "
                           f"is {B.shape[-2]} by {B.shape[-1]}")
    batch = ember.broadcast_shapes(tuple(LD.shape[:-2]), tuple(B.shape[:-2]))
    with ember.no_grad():
        piv = pivots.to(ember.int32).expand(*batch, n)
        X = _C._linalg_ldl_solve(LD.expand(*batch, n, n), piv, B.expand(*batch, *B.shape[-2:]), bool(hermitian))
    return copy_out(X, out)
