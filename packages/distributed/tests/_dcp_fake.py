"""Test helpers for DCP. A test double for a DTensor sharded over a 1-d mesh (what DCP needs of it: ``device_mesh``,
``placements``, global ``shape``, ``to_local()``), used until ember's DTensor lands. Its
local piece follows torch.chunk along the sharded dim, as PyTorch's Shard does."""

from __future__ import annotations

import math

import ember
import ember.distributed as dist


class Shard:
    def __init__(self, dim: int) -> None:
        self.dim = dim

    def is_shard(self, dim: int | None = None) -> bool:
        return dim is None or dim == self.dim

    def is_partial(self) -> bool:
        return False


class Replicate:
    def is_shard(self, dim: int | None = None) -> bool:
        return False

    def is_partial(self) -> bool:
        return False


class Mesh1D:
    def __init__(self) -> None:
        self._rank = dist.get_rank() if dist.is_initialized() else 0
        self._size = dist.get_world_size() if dist.is_initialized() else 1

    def get_coordinate(self) -> list[int]:
        return [self._rank]

    def size(self, mesh_dim: int | None = None) -> int:
        return self._size


class FakeDTensor:
    """``full`` split like torch.chunk along ``placement.dim`` (or replicated)."""

    def __init__(self, full: ember.Tensor, placement: object) -> None:
        self.device_mesh = Mesh1D()
        self.placements = (placement,)
        self.shape = ember.Size(full.shape)
        self.dtype = full.dtype
        if isinstance(placement, Shard):
            pieces = ember.chunk(full, self.device_mesh.size(), dim=placement.dim)
            r = self.device_mesh.get_coordinate()[0]
            local = pieces[r] if r < len(pieces) else full.narrow(placement.dim, 0, 0)
        else:
            local = full
        self._local = local.clone()

    def to_local(self) -> ember.Tensor:
        return self._local

    def numel(self) -> int:
        return math.prod(self.shape)

    def dim(self) -> int:
        return len(self.shape)

    def full_tensor(self) -> ember.Tensor:
        if not isinstance(self.placements[0], Shard):
            return self._local.clone()
        parts = [None] * self.device_mesh.size()
        dist.all_gather_object(parts, self._local)
        return ember.cat([p for p in parts], dim=self.placements[0].dim)


def listdir_settled(path: object, count: int, timeout: float = 20.0) -> list[str]:
    """The directory's sorted names once it holds ``count`` entries: a save deletes the files
    it superseded on a helper thread, shortly after it returns."""
    import os
    import time

    deadline = time.monotonic() + timeout
    names = sorted(os.listdir(path))
    while len(names) != count and time.monotonic() < deadline:
        time.sleep(0.02)
        names = sorted(os.listdir(path))
    return names
