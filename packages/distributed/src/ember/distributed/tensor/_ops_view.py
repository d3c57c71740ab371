"""DTensor rules of view/reshape/flatten/unflatten, with PyTorch's placements.

A view regroups dims: each group of old dims maps to a group of new dims with the same element
count. Under a shard of old dim ``d`` (seen as ``sf`` blocks of ``E`` entries, ``sf`` = 1 for a
plain Shard), a rank holds a chunk of ``E`` for every value of the dims outside -- with the
``suffix`` entries of the later group dims under each. In the new group the chunked run lands on
the new dim ``j`` that holds its top: where ``j``'s stride equals ``suffix`` it becomes
``_StridedShard(j, m)`` (Shard when ``m`` = 1: no outer dim merged into ``j``); where ``j``
merges it with inner dims the chunks must be even; where ``j`` splits it, ``j`` must divide
among the ranks evenly; anything else is replicated first (as PyTorch redistributes). Mesh dims
apply in order, each on the sizes the earlier ones left (PyTorch's split factors on 2-d meshes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ember import Tensor

from ._dtensor import DTensor, DTensorSpec, adopt
from ._ops import _new_shape, _to, local_view
from ._utils import chunk_sizes
from .placement_types import Placement, Replicate, Shard, _StridedShard


def _groups(old: Sequence[int], new: Sequence[int]) -> list[tuple[list[int], list[int]]]:
    """Minimal runs of old and new dims with equal element counts (size-1 dims join a run)."""
    out: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(old) or j < len(new):
        go: list[int] = []
        gn: list[int] = []
        po = pn = 1
        while True:
            if go and gn and po == pn:
                # trailing size-1 dims belong to this run
                while i < len(old) and old[i] == 1 and (j >= len(new) or new[j] != 1):
                    go.append(i)
                    i += 1
                break
            if (i < len(old) and (po <= pn or j >= len(new))) or j >= len(new):
                if i >= len(old):
                    break
                go.append(i)
                po *= old[i]
                i += 1
            else:
                gn.append(j)
                pn *= new[j]
                j += 1
        out.append((go, gn))
    return out


def _uneven(kind: str, what: str, size: int, i: int, n: int) -> RuntimeError:
    return RuntimeError(f"Cannot {kind} unevenly sharded tensor: {what} (size {size}) is not "
                        f"evenly divisible by mesh dimension {i} (size {n}). Please redistribute "
                        "the tensor before this operation.")


def _place(old: list[int], new: list[int], d: int, sf: int, i: int,
           n: int) -> tuple[int, int] | None:
    """(new dim, split factor) of a shard of old dim ``d`` (``sf`` blocks) on mesh dim ``i`` of
    size ``n``; None where it must be replicated first."""
    group = next(g for g in _groups(old, new) if d in g[0])
    go, gn = group
    if old[d] % sf or not gn:
        return None
    e = old[d] // sf
    suffix = math.prod(old[k] for k in go if k > d)
    run = e * suffix
    for j in gn:
        stride = math.prod(new[k] for k in gn if k > j)
        if not (stride < run <= stride * new[j]):
            continue
        if stride == suffix:  # the run starts j: outer entries above it make the stride
            m, rem = divmod(new[j], e)
            if rem:
                return None
            if m > 1 and e % n:
                raise _uneven("flatten", f"dimension {d}", old[d], i, n)
            return j, m
        if stride < suffix:  # j merges the run with inner dims: chunks must be even
            if suffix % stride or (new[j] * stride) % run:
                return None
            if e % n:
                raise _uneven("flatten", f"dimension {d}", old[d], i, n)
            return j, new[j] * stride // run
        # j splits the sharded dim: its top part takes the chunks
        if stride % suffix or new[j] * stride != run or sf != 1:
            return None
        if new[j] % n:
            raise _uneven("unflatten", f"output dimension {gn.index(j)}", new[j], i, n)
        return j, 1
    return None


def _view_placements(self: DTensor, new: Sequence[int]) -> tuple[tuple, tuple, tuple]:
    """(the input placements to view from, the result's, the local shape): shards the view
    cannot carry are replicated first."""
    mesh = self.device_mesh
    old_cur, new_cur = list(self.shape), list(new)
    coord = mesh.get_coordinate() or [0] * mesh.ndim
    src: list[Placement] = []
    out: list[Placement] = []
    for i, p in enumerate(self.placements):
        if not isinstance(p, (Shard, _StridedShard)):
            src.append(p)
            out.append(p)
            continue
        d, sf, n = p.dim, getattr(p, "split_factor", 1), mesh.size(i)
        hit = _place(old_cur, new_cur, d, sf, i, n) if math.prod(old_cur) else None
        if hit is None:
            src.append(Replicate())
            out.append(Replicate())
            continue
        j, m = hit
        src.append(p)
        out.append(_StridedShard(j, split_factor=m) if m > 1 else Shard(j))
        # the sizes the next mesh dims see: this rank's piece at this level
        piece = sf * chunk_sizes(old_cur[d] // sf, n)[coord[i]]
        new_cur[j] = new_cur[j] * piece // old_cur[d]
        old_cur[d] = piece
    return tuple(src), tuple(out), tuple(new_cur)


def view_as(name: str, self: DTensor, new: Sequence[int]) -> DTensor:
    base = getattr(Tensor, "reshape" if name == "reshape" else "view")
    src, out, shape = _view_placements(self, new)
    x = _to(self, src)
    local = base(local_view(x), shape)
    return adopt(local, DTensorSpec(x.device_mesh, out, tuple(new)))


def _reshaper(name: str) -> Any:
    def op(self: DTensor, *shape: Any) -> DTensor:
        return view_as(name, self, _new_shape(self, shape))

    op.__name__ = op.__qualname__ = name
    op.strided_ok = True  # type: ignore[attr-defined]
    return op


def _flatten(self: DTensor, start_dim: int = 0, end_dim: int = -1) -> DTensor:
    n = self.dim()
    if n == 0:
        return view_as("reshape", self, (1,))
    s, e = start_dim % n, end_dim % n
    shape = tuple(self.shape)
    return view_as("reshape", self, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


def _unflatten(self: DTensor, dim: int, sizes: Sequence[int]) -> DTensor:
    d = dim % max(self.dim(), 1)
    sizes = list(sizes)
    if -1 in sizes:
        rest = math.prod(s for s in sizes if s != -1)
        sizes[sizes.index(-1)] = self.shape[d] // rest if rest else 0
    shape = tuple(self.shape)
    return view_as("view", self, shape[:d] + tuple(sizes) + shape[d + 1:])


def methods() -> dict[str, Any]:
    _flatten.strided_ok = True  # type: ignore[attr-defined]
    _unflatten.strided_ok = True  # type: ignore[attr-defined]
    return {"view": _reshaper("view"), "reshape": _reshaper("reshape"), "flatten": _flatten,
            "unflatten": _unflatten}
