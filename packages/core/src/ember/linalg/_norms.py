"""linalg.matrix_norm and linalg.norm, composed from vector_norm, svdvals and reductions."""

from __future__ import annotations

import math
from typing import Any

import ember
from ember._argcheck import parse_int64
from ember._lib import _C
from ember._out import exact_with, same_device, takes_out

_MATRIX_ORDS = ("fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


def _to_end(A: ember.Tensor, d0: int, d1: int) -> ember.Tensor:
    """A with dims d0, d1 moved last (in that order)."""
    rest = [i for i in range(A.dim()) if i not in (d0, d1)]
    return A.permute(rest + [d0, d1])


@takes_out(exact_with("linalg.matrix_norm expected out tensor dtype {want} but got: {got}"),
           device=same_device("linalg.matrix_norm", swapped=True))
def matrix_norm(A: ember.Tensor, ord: Any = "fro", dim: tuple = (-2, -1), keepdim: bool = False, *,
                dtype: Any = None, out: Any = None) -> ember.Tensor:
    """Frobenius, nuclear, spectral (2, -2) and induced (1, -1, inf, -inf) matrix norms."""
    parse_int64(dim, "linalg_matrix_norm", "dim")  # the parser's error first
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if ord not in _MATRIX_ORDS:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    for d in dim:
        if not -A.dim() <= d < A.dim():
            raise IndexError(f"Dimension out of range (expected to be in range of [{-A.dim()}, {A.dim() - 1}], but "
                             f"got {d})")
    d0, d1 = (d % A.dim() for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return _C._linalg_vector_norm(A, 2, [d0, d1], keepdim)
    if ord in ("nuc", 2, -2):
        S = _C._linalg_svdvals(_to_end(A, d0, d1))
        r = S.sum(-1) if ord == "nuc" else S.amax(-1) if ord == 2 else S.amin(-1)
    else:
        # Induced norms: 1 = max column sum, inf = max row sum (min for the negative orders).
        sum_dim, red_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
        sums = A.abs().sum(sum_dim, keepdim=True)
        r = sums.amax(red_dim, keepdim=True) if ord > 0 else sums.amin(red_dim, keepdim=True)
        return r if keepdim else r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    if keepdim:
        r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
    return r


@takes_out(exact_with("linalg.norm expected out tensor dtype {want} but got: {got}"),
           device=same_device("linalg.norm", swapped=True))
def norm(A: ember.Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         dtype: Any = None, out: Any = None) -> ember.Tensor:
    """Vector norm or matrix norm depending on ``ord`` / ``dim`` (PyTorch's dispatch rules)."""
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(ord, str):  # "fro" / "nuc" name matrix norms, whatever dim says (PyTorch's dispatch)
        return matrix_norm(A, ord, (-2, -1) if dim is None else tuple(dim), keepdim, dtype=dtype)
    if dim is not None:
        dim = tuple(dim)
        if len(dim) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
        return _C._linalg_vector_norm(A, 2 if ord is None else ord, list(dim), keepdim, dtype=dtype)
    if ord is None:
        return _C._linalg_vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.dim()}D.")
    if A.dim() == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    return _C._linalg_vector_norm(A, ord, None, keepdim, dtype=dtype)
