"""Helpers shared by ``ember.nn.parallel``: device indices (PyTorch's ``torch._utils`` and
``torch.cuda._utils`` rules), the available accelerator, and the wrapper that carries an exception
out of a replica's thread."""

from __future__ import annotations

import sys
import traceback
from typing import Any, NoReturn

import ember


def _current_device_index() -> int:
    """The current CUDA device, -1 when there is none."""
    if ember.cuda.device_count() > 0:
        return ember.cuda.current_device()
    return -1


def _get_device_index(device: Any, optional: bool = False, allow_cpu: bool = False) -> int:
    """The index of ``device`` (an ``ember.device``, a string or an int, returned as is).

    A device without an index, or None, means the current device when ``optional``; the CPU
    is -1 when ``allow_cpu`` and refused otherwise.
    """
    if isinstance(device, str):
        device = ember.device(device)
    index: int | None = None
    if isinstance(device, ember.device):
        if not allow_cpu and device.type == "cpu":
            raise ValueError(f"Expected a non cpu device, but got: {device}")
        index = -1 if device.type == "cpu" else device.index
    if isinstance(device, int):
        index = device
    if index is None:
        if not optional:
            raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
        index = _current_device_index()
    return index


def _get_cuda_device_index(device: Any, optional: bool = False, allow_cpu: bool = False) -> int:
    """As :func:`_get_device_index`, only CUDA devices (and the CPU with ``allow_cpu``), and an
    ``ember.cuda.device`` context object stands for its index."""
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = ember.device(device)
    if isinstance(device, ember.device):
        if allow_cpu:
            if device.type not in ("cuda", "cpu"):
                raise ValueError(f"Expected a cuda or cpu device, but got: {device}")
        elif device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
    if isinstance(device, ember.cuda.device):
        return int(device.idx)
    return _get_device_index(device, optional, allow_cpu)


def _available_device_type() -> str | None:
    """``"cuda"`` when a GPU is there, else None (ember has no other accelerator)."""
    return "cuda" if ember.cuda.is_available() else None


def _all_device_indices() -> list[int] | None:
    """Every device of the available accelerator, None without one."""
    if _available_device_type() is None:
        return None
    return list(range(ember.cuda.device_count()))


class _KeyErrorMessage(str):
    """A message whose repr is itself (KeyError prints the repr of its argument)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """An exception caught in another thread, with its formatted traceback, to raise again in
    the caller (``reraise``)."""

    def __init__(self, exc_info: Any = None, where: str = "in background") -> None:
        if exc_info is None:
            exc_info = sys.exc_info()
        # keep the type and the text, not the traceback (it would hold the frames alive)
        self.exc_type: Any = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> NoReturn:
        """Raises the wrapped exception's type here, its message naming where it was caught and
        holding the original traceback (RuntimeError when the type cannot be built from a message)."""
        msg: str = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception
