"""``ember.distributed.tensor``: DTensor (a tensor spread over a DeviceMesh) and its placements."""

from __future__ import annotations

from ..device_mesh import DeviceMesh, init_device_mesh
from . import _functions, _ops
from ._dtensor import DTensor, distribute_tensor
from .placement_types import Partial, Placement, Replicate, Shard

_ops.install()
_functions.install()

__all__ = ["DTensor", "DeviceMesh", "Partial", "Placement", "Replicate", "Shard",
           "distribute_tensor", "init_device_mesh"]
