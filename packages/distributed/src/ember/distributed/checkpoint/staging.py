"""Staging for ``async_save``: a private CPU copy of the state dict, taken synchronously, so
training may change the live tensors while the copy is written in the background. A DTensor
is staged as a stand-in with the same interface (mesh, placements, global shape) around a copy
of its local shard, so the planner still writes only this rank's shard."""

from __future__ import annotations

import copy
import math
from typing import Any

import ember

from . import _dtensor as D


class _StagedDTensor:
    def __init__(self, t: Any) -> None:
        self.device_mesh = t.device_mesh
        self.placements = tuple(t.placements)
        self.shape = ember.Size(t.shape)
        self.dtype = t.dtype
        self._local = _copy_tensor(t.to_local())

    def to_local(self) -> Any:
        return self._local

    def numel(self) -> int:
        return math.prod(self.shape)

    def dim(self) -> int:
        return len(self.shape)


def _copy_tensor(t: Any) -> Any:
    t = t.detach()
    return t.to("cpu", copy=True) if t.device.type != "cpu" else t.clone()


def copy_to_cpu(obj: Any) -> Any:
    if D.is_dtensor(obj):
        return _StagedDTensor(obj)
    if isinstance(obj, ember.Tensor):
        return _copy_tensor(obj)
    if isinstance(obj, dict):
        return type(obj)((k, copy_to_cpu(v)) for k, v in obj.items()) if type(obj) is not dict \
            else {k: copy_to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [copy_to_cpu(v) for v in obj]
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return tuple(copy_to_cpu(v) for v in obj)
    return copy.deepcopy(obj)
