"""``ember.accelerator``'s memory queries, as ``torch.accelerator.memory``: the accelerator's
caching allocator (empty before it is initialised); PyTorch's RuntimeError without an accelerator."""

from __future__ import annotations

from typing import Any

__all__ = ["empty_cache", "empty_host_cache", "get_memory_info", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
           "reset_peak_memory_stats"]


def _initialized_cuda() -> Any:
    """ember.cuda when its allocator is in use, None before; PyTorch's error without an accelerator."""
    from ember.accelerator import _cuda

    cuda = _cuda()
    return cuda if cuda.is_initialized() else None


def _device(device_index: Any) -> int:
    from ember.accelerator import _index

    return _index(device_index)


def empty_cache() -> None:
    """Give the accelerator's cached blocks back to the device."""
    cuda = _initialized_cuda()
    if cuda is not None:
        cuda.empty_cache()


def empty_host_cache() -> None:
    """Give the cached pinned host blocks back (ember's pinned allocator frees them as they go)."""
    _initialized_cuda()


def memory_stats(device_index: Any = None, /) -> dict[str, Any]:
    """The allocator's statistics of ``device_index`` under torch's keys ({} before initialisation)."""
    cuda = _initialized_cuda()
    return {} if cuda is None else cuda.memory_stats(_device(device_index))


def _stat(device_index: Any, key: str) -> int:
    return int(memory_stats(device_index).get(key, 0))


def memory_allocated(device_index: Any = None, /) -> int:
    """Bytes the device's tensors occupy now."""
    return _stat(device_index, "allocated_bytes.all.current")


def max_memory_allocated(device_index: Any = None, /) -> int:
    """The peak of memory_allocated since the start or the last reset_peak_memory_stats."""
    return _stat(device_index, "allocated_bytes.all.peak")


def memory_reserved(device_index: Any = None, /) -> int:
    """Bytes the allocator holds from the device now."""
    return _stat(device_index, "reserved_bytes.all.current")


def max_memory_reserved(device_index: Any = None, /) -> int:
    """The peak of memory_reserved since the start or the last reset_peak_memory_stats."""
    return _stat(device_index, "reserved_bytes.all.peak")


def reset_accumulated_memory_stats(device_index: Any = None, /) -> None:
    """The statistics' running totals back to 0."""
    cuda = _initialized_cuda()
    if cuda is not None:
        cuda.reset_accumulated_memory_stats(_device(device_index))


def reset_peak_memory_stats(device_index: Any = None, /) -> None:
    """The statistics' peaks back to their current values."""
    cuda = _initialized_cuda()
    if cuda is not None:
        cuda.reset_peak_memory_stats(_device(device_index))


def get_memory_info(device_index: Any = None, /) -> tuple[int, int]:
    """(free, total) bytes of the device's memory."""
    from ember.accelerator import _cuda

    return _cuda().mem_get_info(_device(device_index))
