"""linalg.cross, matrix_power, multi_dot and vecdot, composed from differentiable ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ember
from ember._out import castable, exact, exact_with, same_device, takes_out
from ember.linalg._common import check_square

MULTI_DOT_DTYPE = "multi_dot(): expected out tensor to have dtype {want_meta} but got {got_meta}"


def _cycle(k: int, dtype: Any, device: Any) -> ember.Tensor:
    """3x3 constant P with (v @ P)[..., i] == v[..., (i + k) % 3], on device."""
    rows = [[1 if j == (i + k) % 3 else 0 for i in range(3)] for j in range(3)]
    return ember.tensor(rows, dtype=dtype, device=device)


@takes_out(grad="linalg_cross")
def cross(input: ember.Tensor, other: ember.Tensor, *, dim: int = -1, out: Any = None) -> ember.Tensor:
    """Cross product of 3-vectors along ``dim`` (inputs broadcast)."""
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    dtype = ember.promote_types(input.dtype, other.dtype)
    a, b = input.to(dtype).transpose(dim, -1), other.to(dtype).transpose(dim, -1)
    p1, p2 = _cycle(1, dtype, a.device), _cycle(2, dtype, a.device)
    c = a.matmul(p1) * b.matmul(p2) - a.matmul(p2) * b.matmul(p1)
    return c.transpose(dim, -1)


def _matrix_power_dtype(r: Any, o: Any) -> None:
    castable("matrix_power")(r, o)  # aten checks castability first, then matmul's exact dtype
    exact(r, o)


@takes_out(_matrix_power_dtype, grad="matmul", device=same_device("matrix_power"))
def matrix_power(A: ember.Tensor, n: int, *, out: Any = None) -> ember.Tensor:
    """A^n by repeated squaring; negative n inverts first, n = 0 gives identities."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if n == 0:
        return ember.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(tuple(A.shape)).clone()
    if n < 0:
        check_square(A, "linalg.inv")
        A = ember.linalg.inv(A)
        n = -n
    result = None
    base = A
    while n:
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return result if result is not A else A.clone()


@takes_out(exact_with(MULTI_DOT_DTYPE), device="multi_dot(): expected out tensor to be on device {input} but got {out}")
def multi_dot(tensors: Sequence[ember.Tensor], *, out: Any = None) -> ember.Tensor:
    """Chained matrix product; the first / last argument may be a vector."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    for i, t in enumerate(ts):
        lo = 1 if i in (0, len(ts) - 1) else 2
        if not (lo <= t.dim() <= 2):
            where = ("first" if i == 0 else "last") if lo == 1 else ""
            if where:
                raise RuntimeError(f"multi_dot(): the {where} tensor must be 1D or 2D but got {t.dim()}D")
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    first_vec, last_vec = ts[0].dim() == 1, ts[-1].dim() == 1
    if first_vec:
        ts[0] = ts[0].unsqueeze(0)
    if last_vec:
        ts[-1] = ts[-1].unsqueeze(-1)
    for i in range(len(ts) - 1):
        if ts[i].shape[1] != ts[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {tuple(ts[i].shape)} and "
                               f"{tuple(ts[i + 1].shape)} cannot be multiplied")
    r = ts[0]
    for t in ts[1:]:
        r = r.matmul(t)
    if last_vec:
        r = r.squeeze(-1)
    if first_vec:
        r = r.squeeze(0)
    return r


@takes_out(exact_with("linalg.vecdot: Expected out of dtype{want} but found {got}"), grad="sum",
           device=same_device("linalg.vecdot", swapped=True))
def vecdot(x: ember.Tensor, y: ember.Tensor, *, dim: int = -1, out: Any = None) -> ember.Tensor:
    """Dot product of vectors along ``dim`` (broadcasting), the first conjugated: sum(x.conj() * y)."""
    return (x.conj() * y).sum(dim)
