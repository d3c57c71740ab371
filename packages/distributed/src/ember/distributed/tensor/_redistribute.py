"""Moving a DTensor's local tensor between placements: the collectives per mesh dim, and the
autograd function whose backward moves the gradient back.

Work goes mesh dim by mesh dim: first (last dim to first) every placement that changes is
made Replicate (all-gather of a Shard, all-reduce of a Partial; a lone Partial -> Shard is one
reduce-scatter), then (first dim to last) Replicate becomes the target (a local narrow for a
Shard, zeros off the first coordinate for a Partial sum).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ember
from ember.autograd import Function

from .. import collectives as C
from ._utils import chunk_offset, chunk_sizes
from .placement_types import Partial, Placement, Replicate, Shard


def _level_size(shape: Sequence[int], mesh: Any, placements: Sequence[Placement], i: int,
                d: int) -> int:
    """The size along tensor dim ``d`` of the piece that mesh dim ``i`` splits."""
    size = shape[d]
    coord = mesh.get_coordinate()
    for j in range(i):
        p = placements[j]
        if isinstance(p, Shard) and p.dim == d:
            size = chunk_sizes(size, mesh.size(j))[coord[j]]
    return size


def _padded_front(local: Any, d: int, rows: int) -> Any:
    """``local`` with dim ``d`` moved first and zero-padded to ``rows`` entries, contiguous."""
    x = local.movedim(d, 0) if d else local
    if x.shape[0] == rows:
        return x.contiguous()
    buf = ember.zeros((rows, *x.shape[1:]), dtype=x.dtype)
    buf[: x.shape[0]].copy_(x)
    return buf


def shard_to_replicate(local: Any, d: int, size: int, group: Any, n: int) -> Any:
    c = -(-size // n) if size else 0
    x = _padded_front(local, d, c)
    out = ember.empty((n * c, *x.shape[1:]), dtype=x.dtype)
    C.all_gather_into_tensor(out, x, group=group)
    out = out[:size]
    return out.movedim(0, d).contiguous() if d else out


def partial_to_shard(local: Any, op: Any, d: int, size: int, group: Any, n: int, me: int) -> Any:
    c = -(-size // n) if size else 0
    x = _padded_front(local, d, n * c)
    out = ember.empty((c, *x.shape[1:]), dtype=x.dtype)
    C.reduce_scatter_tensor(out, x, op=op, group=group)
    out = out[: chunk_sizes(size, n)[me]]
    return out.movedim(0, d).contiguous() if d else out


def redistribute_local(local: Any, mesh: Any, src: Sequence[Placement],
                       dst: Sequence[Placement], shape: Sequence[int]) -> Any:
    """The local tensor of placements ``dst`` for the global value held as ``local`` under ``src``."""
    cur = list(src)
    coord = mesh.get_coordinate()
    if coord is None:
        return local
    # A changing Shard(d) must be gathered after every later mesh dim that also shards d.
    undo = [cur[i] != dst[i] for i in range(mesh.ndim)]
    for i in range(mesh.ndim):
        if undo[i] and isinstance(cur[i], Shard):
            for j in range(i + 1, mesh.ndim):
                if cur[j] == cur[i]:
                    undo[j] = True
    changed = [i for i in range(mesh.ndim) if undo[i]]
    for i in reversed(range(mesh.ndim)):
        if not undo[i]:
            continue
        p, n, g = cur[i], mesh.size(i), mesh.get_group(i)
        if isinstance(p, Shard):
            local = shard_to_replicate(local, p.dim, _level_size(shape, mesh, cur, i, p.dim), g, n)
        elif isinstance(p, Partial):
            t = dst[i]
            if isinstance(t, Shard) and changed == [i]:
                size = _level_size(shape, mesh, cur, i, t.dim)
                local = partial_to_shard(local, p._c10d_op(), t.dim, size, g, n, coord[i])
                cur[i] = t
                continue
            local = local.clone()
            C.all_reduce(local, op=p._c10d_op(), group=g)
        cur[i] = Replicate()
    for i in range(mesh.ndim):
        t = dst[i]
        if cur[i] == t:
            continue
        n = mesh.size(i)
        if isinstance(t, Shard):
            size = _level_size(shape, mesh, cur, i, t.dim)
            local = local.narrow(t.dim, chunk_offset(size, n, coord[i]),
                                 chunk_sizes(size, n)[coord[i]]).contiguous()
        elif isinstance(t, Partial) and t.reduce_op in ("sum", "product") and coord[i] != 0:
            local = ember.zeros_like(local) if t.reduce_op == "sum" else ember.ones_like(local)
        cur[i] = t
    return local


def _grad_placements(ps: Sequence[Placement]) -> tuple[Placement, ...]:
    """A Partial value's gradient is replicated (every term gets the whole gradient)."""
    return tuple(Replicate() if isinstance(p, Partial) else p for p in ps)


class Redistribute(Function):
    """Autograd over ``redistribute_local``: backward moves the gradient from the target
    placements back to the source ones."""

    @staticmethod
    def forward(ctx: Any, local: Any, mesh: Any, src: tuple, dst: tuple, shape: tuple) -> Any:
        ctx.spec = (mesh, src, dst, shape)
        out = redistribute_local(local, mesh, src, dst, shape)
        return out.clone() if out is local else out

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        mesh, src, dst, shape = ctx.spec
        g = redistribute_local(grad, mesh, _grad_placements(dst), _grad_placements(src), shape)
        return g, None, None, None, None
