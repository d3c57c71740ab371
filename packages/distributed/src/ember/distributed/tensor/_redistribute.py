"""Moving a DTensor's local tensor between placements: the collectives per mesh dim, and the
autograd function whose backward moves the gradient back.

Work goes mesh dim by mesh dim: first (last dim to first) every placement that changes is
made Replicate (all-gather of a Shard, all-reduce of a Partial; a lone Partial -> Shard is one
reduce-scatter), then (first dim to last) Replicate becomes the target (a local narrow for a
Shard, zeros off the first coordinate for a Partial sum).

A ``_NormPartial`` reduces as p-th powers summed then rooted; a ``_StridedShard`` gathers as
a Shard whose pieces are then put back block by block.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ember
from ember.autograd import Function

from .. import collectives as C
from ._utils import chunk_offset, chunk_sizes, compute_local_shape
from .placement_types import Partial, Placement, Replicate, Shard, _NormPartial, _StridedShard


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


def strided_to_replicate(local: Any, d: int, size: int, sf: int, group: Any, n: int) -> Any:
    """All-gather of a _StridedShard: each rank's piece holds its chunk of every block; the
    gathered pieces are reordered to block-major."""
    block = size // sf
    c = -(-block // n) if block else 0
    x = local.movedim(d, 0) if d else local
    rest = tuple(x.shape[1:])
    mine = x.shape[0] // sf if sf else 0
    buf = ember.zeros((sf, c, *rest), dtype=x.dtype)
    buf[:, :mine].copy_(x.reshape(sf, mine, *rest))
    out = ember.empty((n, sf, c, *rest), dtype=x.dtype)
    C.all_gather_into_tensor(out, buf.contiguous(), group=group)
    # (n, sf, c) -> (sf, n * c): the real rows of each block are its first ``block`` (torch.chunk
    # pads only at the end)
    full = out.transpose(0, 1).reshape(sf, n * c, *rest)[:, :block].reshape(size, *rest)
    return full.movedim(0, d).contiguous() if d else full


def replicate_to_strided(local: Any, d: int, size: int, sf: int, n: int, me: int) -> Any:
    block = size // sf
    x = local.movedim(d, 0) if d else local
    rest = tuple(x.shape[1:])
    piece = x.reshape(sf, block, *rest).narrow(1, chunk_offset(block, n, me), chunk_sizes(block, n)[me])
    out = piece.reshape(sf * piece.shape[1], *rest)
    return out.movedim(0, d).contiguous() if d else out.contiguous()


def _reduce(local: Any, p: Partial, group: Any) -> Any:
    """All-reduce of a Partial's terms (a norm's as powers, then the root)."""
    if isinstance(p, _NormPartial):
        local = p.pre_reduce(local).contiguous()
        C.all_reduce(local, op=p._c10d_op(), group=group)
        return p.post_reduce(local)
    local = local.clone()
    C.all_reduce(local, op=p._c10d_op(), group=group)
    return local


def redistribute_local(local: Any, mesh: Any, src: Sequence[Placement],
                       dst: Sequence[Placement], shape: Sequence[int]) -> Any:
    """The local tensor of placements ``dst`` for the global value held as ``local`` under ``src``."""
    cur = list(src)
    coord = mesh.get_coordinate()
    if coord is None:
        return local
    if local.is_meta and not any(isinstance(p, _StridedShard) for p in (*src, *dst)):
        # a meta tensor has no values to exchange (torch's collectives on meta only infer
        # shapes): the result is a meta tensor of this rank's share under ``dst``
        if list(src) == list(dst):
            return local
        return ember.empty(compute_local_shape(shape, mesh, dst), dtype=local.dtype,
                           device="meta")
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
        elif isinstance(p, _StridedShard):
            local = strided_to_replicate(local, p.dim, _level_size(shape, mesh, cur, i, p.dim),
                                         p.split_factor, g, n)
        elif isinstance(p, Partial):
            t = dst[i]
            if isinstance(t, Shard) and changed == [i]:
                size = _level_size(shape, mesh, cur, i, t.dim)
                if isinstance(p, _NormPartial):  # powers reduce-scattered, then the root
                    local = p.post_reduce(partial_to_shard(p.pre_reduce(local), p._c10d_op(),
                                                           t.dim, size, g, n, coord[i]))
                else:
                    local = partial_to_shard(local, p._c10d_op(), t.dim, size, g, n, coord[i])
                cur[i] = t
                continue
            local = _reduce(local, p, g)
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
        elif isinstance(t, _StridedShard):
            size = _level_size(shape, mesh, cur, i, t.dim)
            local = replicate_to_strided(local, t.dim, size, t.split_factor, n, coord[i])
        elif isinstance(t, _NormPartial):
            local = t.partition(local, n)
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
        ctx.scale = None
        # Settling a norm (or max/min) Partial: a term's share of the gradient is not the whole
        # of it -- d total / d term = (term / total)^(p-1) (for max/min: the terms equal to it)
        settled = [i for i, p in enumerate(src) if _nonlinear(p) and dst[i] != p]
        if settled:
            mid = tuple(Replicate() if i in settled else p for i, p in enumerate(src))
            total = redistribute_local(local, mesh, src, mid, shape)
            ctx.scale = _grad_scale(local, total, [src[i] for i in settled])
        # an average's terms each count 1/n
        ctx.avg = math.prod(mesh.size(i) for i, p in enumerate(src)
                            if isinstance(p, Partial) and p.reduce_op == "avg" and dst[i] != p)
        out = redistribute_local(local, mesh, src, dst, shape)
        return out.clone() if out is local else out

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        mesh, src, dst, shape = ctx.spec
        g = redistribute_local(grad, mesh, _grad_placements(dst), _grad_placements(src), shape)
        if ctx.scale is not None:
            g = g * ctx.scale
        if ctx.avg != 1:
            g = g / ctx.avg
        return g, None, None, None, None


def _nonlinear(p: Placement) -> bool:
    return isinstance(p, _NormPartial) or (isinstance(p, Partial) and p.reduce_op in ("max", "min"))


def _grad_scale(term: Any, total: Any, ps: Sequence[Placement]) -> Any:
    """d total / d term for the settled Partials (one kind per tensor in practice)."""
    p = ps[0]
    if isinstance(p, _NormPartial):
        q = float(p.norm_type) - 1.0
        if q == 0.0:
            return ember.ones_like(term)
        ratio = ember.where(total == 0, ember.zeros_like(term), term / total)
        return ratio ** q
    return (term == total).to(term.dtype)
