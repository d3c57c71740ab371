"""``ember.utils.dlpack``: exchange tensors with other libraries through DLPack.

``from_dlpack`` accepts any object with ``__dlpack__``/``__dlpack_device__``
(NumPy arrays, PyTorch tensors, ...) or a raw capsule; the result shares memory
with the producer, which is kept alive until the ember tensor is freed.
"""

from __future__ import annotations

import enum
from typing import Any

from ember._lib import _C

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """Device kinds as numbered by the DLPack specification."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def to_dlpack(tensor: Any) -> Any:
    """A legacy ``"dltensor"`` capsule sharing ``tensor``'s memory (consume it once)."""
    if not isinstance(tensor, _C.TensorBase):
        raise TypeError(f"to_dlpack(): argument 'data' (position 1) must be Tensor, not {type(tensor).__name__}")
    return _C._to_dlpack(tensor, False, False)


def _target_dl_device(device: Any) -> tuple[int, int]:
    d = _C.device(device)
    if d.type == "cpu":
        return DLDeviceType.kDLCPU, 0
    return DLDeviceType.kDLCUDA, d.index if d.index is not None else 0


def _request_capsule(ext: Any, kwargs: dict[str, Any]) -> tuple[Any, bool]:
    """Call ``ext.__dlpack__``, dropping keywords an older producer rejects.

    Returns the capsule and whether the producer honoured ``copy``.
    """
    for drop in (None, "max_version", "copy", "dl_device"):
        if drop is not None:
            kwargs.pop(drop, None)
        try:
            return ext.__dlpack__(**kwargs), "copy" in kwargs
        except TypeError:
            if drop == "dl_device":
                raise
    raise AssertionError("unreachable")


def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: bool | None = None) -> Any:
    """A tensor sharing memory with ``ext_tensor`` (an object with ``__dlpack__``, or a capsule)."""
    if not hasattr(ext_tensor, "__dlpack__"):
        if device is not None or copy is not None:
            raise AssertionError(
                "device and copy kwargs not supported when ext_tensor is already a DLPack capsule."
            )
        return _C._from_dlpack(ext_tensor)

    kwargs: dict[str, Any] = {"max_version": (1, 0)}
    if copy is not None:
        kwargs["copy"] = copy
    cross_device = False
    if device is not None:
        source = tuple(int(x) for x in ext_tensor.__dlpack_device__())
        target = _target_dl_device(device)
        cross_device = source[0] != target[0] or (target[0] != DLDeviceType.kDLCPU and source != target)
        if cross_device and copy is False:
            raise ValueError(
                f"cannot move DLPack tensor from device {source} to {target} without copying. "
                "Set copy=None or copy=True."
            )
        if not cross_device:
            kwargs["dl_device"] = target
    capsule, copy_honoured = _request_capsule(ext_tensor, kwargs)
    tensor = _C._from_dlpack(capsule)
    if copy and not copy_honoured and not cross_device:
        tensor = tensor.clone()
    if cross_device:
        tensor = tensor.to(device)
    return tensor
