"""``ember.accelerator``: the device-generic facade over the build's accelerator, as
``torch.accelerator`` -- CUDA in a CUDA build (whether or not a GPU is present), none otherwise.
Without one, the queries answer "none" and what needs a device raises PyTorch's RuntimeError."""

from __future__ import annotations

import warnings
from typing import Any

from ember.accelerator.memory import (
    empty_cache,
    empty_host_cache,
    get_memory_info,
    max_memory_allocated,
    max_memory_reserved,
    memory_allocated,
    memory_reserved,
    memory_stats,
    reset_accumulated_memory_stats,
    reset_peak_memory_stats,
)

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "current_stream", "device_count",
           "device_index", "empty_cache", "empty_host_cache", "get_device_capability", "get_memory_info",
           "is_available", "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx",
           "set_device_index", "set_stream", "synchronize"]


def _cuda() -> Any:
    """ember.cuda, or PyTorch's error when the build has no accelerator."""
    import ember

    if current_accelerator() is None:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return ember.cuda


def _index(device: Any, optional: bool = True) -> int:
    """A device argument as an index of the accelerator (None: the current one), PyTorch's rules."""
    import ember

    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, str):
        device = ember.device(device)
    index = None
    if isinstance(device, ember.device):
        acc = current_accelerator()
        if acc is None:
            raise RuntimeError("Accelerator expected")
        if acc.type != device.type:
            raise ValueError(f"{device.type} doesn't match the current accelerator {acc}.")
        index = device.index
    if index is None:
        if not optional:
            raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
        return current_device_index()
    return index


def current_accelerator(check_available: bool = False) -> Any:
    """The build's accelerator as a device (``device(type='cuda')``), or None.

    Args:
        check_available (bool): None too when the accelerator has no device on this machine.
    """
    import ember
    from ember._lib import _C

    if not _C._cuda_is_compiled():
        return None
    if check_available and not is_available():
        return None
    return ember.device("cuda")


def is_available() -> bool:
    """Whether the accelerator has a device on this machine."""
    return current_accelerator() is not None and device_count() > 0


def device_count() -> int:
    """How many devices the accelerator has (0 without one)."""
    if current_accelerator() is None:
        return 0
    import ember

    return ember.cuda.device_count()


def current_device_index() -> int:
    """The index of the accelerator's current device."""
    return int(_cuda().current_device())


def current_device_idx() -> int:
    """Deprecated spelling of current_device_index."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_index(device: Any, /) -> None:
    """Make ``device`` the accelerator's current device."""
    _cuda().set_device(_index(device, optional=False))


def set_device_idx(device: Any, /) -> None:
    """Deprecated spelling of set_device_index."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


def current_stream(device: Any = None, /) -> Any:
    """The current stream of ``device`` (default: the current device)."""
    cuda = _cuda()
    return cuda.current_stream(_index(device))


def set_stream(stream: Any) -> None:
    """Make ``stream`` current on its device."""
    _cuda().set_stream(stream)


def synchronize(device: Any = None, /) -> None:
    """Wait for all work queued on ``device`` (default: the current device)."""
    cuda = _cuda()
    cuda.synchronize(_index(device))


def get_device_capability(device: Any = None, /) -> dict[str, Any]:
    """What ``device`` supports: ``{"supported_dtypes": {...}}``, the dtypes its tensors may have."""
    import ember

    _cuda().get_device_properties(_index(device))  # PyTorch's error for a device that is not there
    names = ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16", "bfloat16",
             "float32", "float64", "complex64", "complex128")
    return {"supported_dtypes": {getattr(ember, n) for n in names}}


class device_index:
    """Context manager: ``device`` is the accelerator's current device inside the block (None:
    nothing changes).

    Args:
        device (int or None): the device index.
    """

    def __init__(self, device: int | None, /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None:
            self.prev_idx = _cuda()._exchange_device(self.idx)

    def __exit__(self, *exc_info: object) -> None:
        if self.idx is not None:
            _cuda()._exchange_device(self.prev_idx)
