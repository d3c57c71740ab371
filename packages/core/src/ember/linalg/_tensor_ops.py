"""torch.linalg.tensorinv and tensorsolve: linalg.inv / linalg.solve on the tensor reshaped to a
matrix (differentiable through them)."""

from __future__ import annotations

import math
from typing import Any

import ember
from ember._lib import _C
from ember._out import same_device
from ember.linalg._common import copy_out


def tensorinv(A: ember.Tensor, ind: int = 2, *, out: Any = None) -> ember.Tensor:
    """tensorinv(A, ind=2, *, out=None) -> Tensor

    The inverse of ``A`` for ``ember.tensordot(A, X, ind)``: ``A`` viewed as the matrix
    ``prod(A.shape[:ind]) x prod(A.shape[ind:])``, inverted, and shaped ``A.shape[ind:] + A.shape[:ind]``.

    Args:
        A (Tensor): a tensor with ``prod(A.shape[:ind]) == prod(A.shape[ind:])``.
        ind (int): how many leading dimensions form the rows (positive).
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor: the tensor inverse.

    Example::

        >>> ember.linalg.tensorinv(ember.eye(4).reshape(4, 2, 2), ind=1).shape
        torch.Size([2, 2, 4])
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    try:
        inv = ember.linalg.inv(A.reshape(rows, cols))
    except _C._LinAlgError as e:  # PyTorch's message names the inner op as plain "inv"
        raise _C._LinAlgError(str(e).replace("linalg.inv:", "inv:", 1)) from None
    return copy_out(inv.reshape(*A.shape[ind:], *A.shape[:ind]), out, device=same_device("tensorinv"))


def tensorsolve(A: ember.Tensor, B: ember.Tensor, dims: Any = None, *, out: Any = None) -> ember.Tensor:
    """tensorsolve(A, B, dims=None, *, out=None) -> Tensor

    The ``X`` with ``ember.tensordot(A, X, X.ndim) == B``: ``A`` viewed as the matrix
    ``B.numel() x prod(A.shape[B.ndim:])`` and solved against ``B`` flattened. ``dims`` moves those
    dimensions of ``A`` to the end first.

    Args:
        A (Tensor): a tensor of shape ``B.shape + X.shape`` (after moving ``dims``).
        B (Tensor): the right-hand side.
        dims (tuple of int, optional): dimensions of ``A`` moved to the end.
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor: ``X``, of shape ``A.shape[B.ndim:]``.

    Example::

        >>> A = ember.eye(6).reshape(2, 3, 6)
        >>> ember.linalg.tensorsolve(A, ember.ones(2, 3)).shape
        torch.Size([6])
    """
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        rest = [d for d in range(A.dim()) if d not in dims]
        A = A.permute(*rest, *dims)
    nd = B.dim()
    rows, cols = B.numel(), math.prod(A.shape[nd:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    X = ember.linalg.solve(A.reshape(rows, cols), B.reshape(rows))
    return copy_out(X.reshape(*A.shape[nd:]), out, device=same_device("tensorsolve"))
