"""DTensor as DCP sees it, by its interface only (``device_mesh``, ``placements``,
``to_local()``, global ``shape``), so checkpointing works with ember's DTensor and anything
shaped like it. A rank's chunk of a ``Shard(d)`` dimension follows torch.chunk: leading
ranks get the ceil size, trailing ones may be smaller or empty."""

from __future__ import annotations

from typing import Any


def is_dtensor(obj: Any) -> bool:
    return hasattr(obj, "device_mesh") and hasattr(obj, "placements") and hasattr(obj, "to_local")


def _shard_dim(p: Any) -> int | None:
    check = getattr(p, "is_shard", None)
    if callable(check):
        return p.dim if check() else None
    return p.dim if type(p).__name__ == "Shard" else None


def _is_partial(p: Any) -> bool:
    check = getattr(p, "is_partial", None)
    return bool(check()) if callable(check) else type(p).__name__ == "Partial"


def chunk_range(size: int, parts: int, k: int) -> tuple[int, int]:
    """(start, length) of piece ``k`` when ``size`` is split like ``torch.chunk(parts)``."""
    step = -(-size // parts) if parts else size
    start = min(k * step, size)
    return start, max(0, min(size, start + step) - start)


def local_chunk(t: Any) -> tuple[list[int], list[int]]:
    """(offsets, sizes) of this rank's local piece of DTensor ``t`` in the global tensor."""
    shape = list(t.shape)
    offsets = [0] * len(shape)
    sizes = list(shape)
    mesh = t.device_mesh
    coord = mesh.get_coordinate()
    if coord is None:  # this rank is not in the mesh: it holds nothing
        return offsets, [0] * len(shape)
    for mesh_dim, p in enumerate(t.placements):
        if _is_partial(p):
            raise ValueError("DCP cannot checkpoint a DTensor with a Partial placement; "
                             "redistribute it to Shard or Replicate first")
        d = _shard_dim(p)
        if d is None:
            continue
        d = d % max(len(shape), 1)
        start, length = chunk_range(sizes[d], mesh.size(mesh_dim), coord[mesh_dim])
        offsets[d] += start
        sizes[d] = length
    return offsets, sizes


def local_tensor(t: Any) -> Any:
    """The plain tensor a DTensor (or plain tensor) holds on this rank (shares its memory)."""
    return t.to_local() if is_dtensor(t) else t


def tensor_chunk(t: Any) -> tuple[list[int], list[int]]:
    """(offsets, sizes) of what this rank holds of ``t`` (all of it for a plain tensor)."""
    if is_dtensor(t):
        return local_chunk(t)
    return [0] * t.dim(), list(t.shape)
