"""DLPack methods of ``ember.Tensor`` (``__dlpack__``, ``__dlpack_device__``).

The capsule itself is built in C++ (csrc/python/py_dlpack.cpp); this file
holds the protocol policy: which capsule flavour, copies, streams, devices.
"""

from __future__ import annotations

from typing import Any

from ember._lib import _C

_KDLCPU, _KDLCUDA = 1, 2  # DLDeviceType values (see ember.utils.dlpack.DLDeviceType)


def _dl_device_of(t: Any) -> tuple[int, int]:
    d = t.device
    if d.type == "cpu":
        return _KDLCPU, 0
    return _KDLCUDA, d.index if d.index is not None else 0


class DLPackMethods:
    """Mixed into ``ember.Tensor``."""

    __slots__ = ()

    def __dlpack__(self, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[Any, int] | None = None, copy: bool | None = None) -> Any:
        """A DLPack capsule sharing this tensor's memory (``dltensor_versioned`` when
        ``max_version`` allows DLPack 1.x, else the legacy ``dltensor``)."""
        t: Any = self
        if t.requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        if t.is_conj():
            raise BufferError("Can't export tensors with the conjugate bit set")
        if stream is not None and type(stream) is not int:
            raise TypeError("stream must be ``int`` or ``none``")
        if t.device.type == "cpu" and stream is not None and stream != -1:
            raise AssertionError("stream should be None on cpu.")
        copied = False
        if dl_device is not None and (int(dl_device[0]), int(dl_device[1])) != _dl_device_of(t):
            kind, index = int(dl_device[0]), int(dl_device[1])
            if kind != _KDLCPU and kind != _KDLCUDA:
                raise BufferError(f"Unsupported dl_device {tuple(dl_device)}: ember exports to CPU or CUDA only")
            if kind == _KDLCPU and t.device.type == "cpu":
                pass  # (kDLCPU, n): any CPU id is the one CPU
            elif copy is False:
                raise BufferError(f"Exporting to dl_device {tuple(dl_device)} needs a copy, but copy=False")
            else:
                t = t.to("cpu" if kind == _KDLCPU else f"cuda:{index}")
                copied = True
        if copy and not copied:
            t = t.clone()
            copied = True
        versioned = max_version is not None and int(max_version[0]) >= 1
        return _C._to_dlpack(t, versioned, copied)

    def __dlpack_device__(self) -> tuple[Any, int]:
        """``(DLDeviceType, device id)`` of this tensor's memory."""
        from ember.utils.dlpack import DLDeviceType

        kind, index = _dl_device_of(self)
        return DLDeviceType(kind), index
