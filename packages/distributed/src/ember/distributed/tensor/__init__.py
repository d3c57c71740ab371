"""``ember.distributed.tensor``: DTensor (a tensor spread over a DeviceMesh) and its placements."""

from __future__ import annotations

import importlib
from typing import Any

from ..device_mesh import DeviceMesh, init_device_mesh
from . import _dispatch, _ops
from ._dtensor import DTensor, distribute_tensor
from ._factories import empty, full, ones, rand, randn, zeros
from ._module import distribute_module
from .placement_types import Partial, Placement, Replicate, Shard

_ops.install()
_dispatch.install()

__all__ = ["DTensor", "DeviceMesh", "Partial", "Placement", "Replicate", "Shard",
           "distribute_module", "distribute_tensor", "empty", "full", "init_device_mesh", "ones",
           "rand", "randn", "zeros"]


def __getattr__(name: str) -> Any:
    if name == "parallel":  # the tensor-parallel submodule, loaded on first use
        return importlib.import_module(".parallel", __name__)
    raise AttributeError(f"module 'ember.distributed.tensor' has no attribute '{name}'")
