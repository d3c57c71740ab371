"""torch.linalg functions composed from the LAPACK-backed core: solve_triangular, vander, diagonal, cond
and matmul."""

from __future__ import annotations

import math
from typing import Any

import ember
from ember._composite_pointwise import _pretty
from ember._lib import _C
from ember._out import castable, exact_with, same_device, write
from ember._tensor import Tensor

__all__ = ["cond", "diagonal", "matmul", "solve_triangular", "vander"]

matmul = ember.matmul


def _square(A: Tensor, name: str) -> None:
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out: Tensor | None = None) -> Tensor:
    """X with A X = B (X A = B when not left) for triangular A; only A's upper or lower triangle is read."""
    name = "linalg.solve_triangular"
    _square(A, name)
    if B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    dtype = A.dtype  # aten computes in A's dtype, B converted (a float64 B with float32 A gives float32)
    k = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != k:
        shapes = (f"{A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]}")
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} ({shapes})")
    if dtype not in (ember.float32, ember.float64, ember.complex64, ember.complex128):
        raise NotImplementedError(f'"triangular_solve_cpu" not implemented for \'{_pretty(dtype)}\'')
    if B.dtype != dtype:
        B = B.to(dtype)
    if A.shape[:-2] != B.shape[:-2]:  # (the common case skips 2 us of broadcasting)
        batch = ember.broadcast_shapes(A.shape[:-2], B.shape[:-2])
        A, B = A.expand(*batch, k, k), B.expand(*batch, *B.shape[-2:])
    result = _C._linalg_solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)
    return write(result, out, exact_with("expected scalar type {want} but found {got}"),
                 grad="linalg_solve_triangular", inputs=(A, B))


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """Columns x**0, x**1, ..., x**(N-1) along a new last dim (N defaults to x's last size)."""
    if x.dim() < 1:
        raise RuntimeError("N must be greater than 1.")  # aten's check reads x.size(-1) as N first
    if x.dtype == ember.bool:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    return ember.cat([ember.ones_like(x).unsqueeze(-1), powers], -1)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A's diagonals over its last two dims (a view)."""
    return A.diagonal(offset, dim1, dim2)


_SVD_ORDS = (None, 2, -2)


def cond(A: Tensor, p: Any = None, *, out: Tensor | None = None) -> Tensor:
    """The condition number of A in the p-norm (the ratio of extreme singular values for p None/2/-2)."""
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in _SVD_ORDS and p not in ("fro", "nuc", math.inf, -math.inf, 1, -1):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p in _SVD_ORDS:
        s = ember.linalg.svdvals(A)
        result = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
        return write(result, out, castable("linalg.cond"), device=same_device("linalg.cond"))
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    inverse, info = ember.linalg.inv_ex(A)
    result = ember.linalg.matrix_norm(A, p) * ember.linalg.matrix_norm(inverse, p)
    result = ember.where(info > 0, ember.full_like(result, math.inf), result)  # singular: infinitely ill-posed
    return write(result, out, castable("linalg.cond"), device=same_device("linalg.cond"))
