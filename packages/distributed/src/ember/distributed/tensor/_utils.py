"""Shape arithmetic of sharding: chunk sizes, local shapes and global offsets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .placement_types import Placement, Shard


def chunk_sizes(size: int, n: int) -> list[int]:
    """torch.chunk's split of ``size`` into ``n`` pieces, padded with empty pieces: leading
    pieces get ceil(size / n), the rest what is left (possibly 0)."""
    c = -(-size // n) if size else 0
    return [max(0, min(c, size - i * c)) for i in range(n)]


def chunk_offset(size: int, n: int, i: int) -> int:
    c = -(-size // n) if size else 0
    return min(i * c, size)


def compute_local_shape_and_global_offset(global_shape: Sequence[int], mesh: Any,
                                          placements: Sequence[Placement],
                                          coordinate: Sequence[int] | None = None,
                                          ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """This rank's (local shape, offset of its block in the global tensor); mesh dims apply in
    order, so two Shards of one tensor dim nest (the later splits the earlier's piece)."""
    coord = mesh.get_coordinate() if coordinate is None else coordinate
    shape = list(global_shape)
    offset = [0] * len(shape)
    if coord is None:  # not in the mesh: an empty block
        return tuple(0 for _ in shape), tuple(offset)
    for i, p in enumerate(placements):
        if isinstance(p, Shard):
            d = p.dim
            n = mesh.size(i)
            offset[d] += chunk_offset(shape[d], n, coord[i])
            shape[d] = chunk_sizes(shape[d], n)[coord[i]]
    return tuple(shape), tuple(offset)


def compute_local_shape(global_shape: Sequence[int], mesh: Any,
                        placements: Sequence[Placement]) -> tuple[int, ...]:
    return compute_local_shape_and_global_offset(global_shape, mesh, placements)[0]


def normalize_placements(placements: Any, mesh: Any, ndim: int, fn: str) -> tuple[Placement, ...]:
    """Placements as a tuple with one entry per mesh dim and Shard dims made non-negative."""
    if placements is None:
        from .placement_types import Replicate

        return tuple(Replicate() for _ in range(mesh.ndim))
    out = tuple(placements)
    if len(out) != mesh.ndim:
        raise ValueError(f"{fn}: `placements` must have the same length as `device_mesh.ndim`! "
                         f"Found placements length: {len(out)}, and device_mesh.ndim: {mesh.ndim}.")
    fixed = []
    for p in out:
        if not isinstance(p, Placement):
            raise TypeError(f"{fn}: placements must be Shard/Replicate/Partial, got {p!r}")
        if isinstance(p, Shard) and p.dim < 0:
            if not -ndim <= p.dim:
                raise IndexError(f"{fn}: Shard dim {p.dim} is out of range for a {ndim}-d tensor")
            p = Shard(p.dim + ndim)
        if isinstance(p, Shard) and p.dim >= max(ndim, 1):
            raise IndexError(f"{fn}: Shard dim {p.dim} is out of range for a {ndim}-d tensor")
        fixed.append(p)
    return tuple(fixed)


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))
