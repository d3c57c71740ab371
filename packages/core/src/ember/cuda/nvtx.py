"""NVTX ranges and marks for NVIDIA's profilers (Nsight Systems), as torch.cuda.nvtx: they appear
on the profiler's timeline when one is attached and cost next to nothing otherwise. A build
without CUDA raises PyTorch's error."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["mark", "range", "range_end", "range_pop", "range_push", "range_start"]


def _nvtx() -> Any:
    from ember._lib import _C

    if not _C._cuda_is_compiled():
        raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")
    return _C


def range_push(msg: str) -> int:
    """Push a range named ``msg`` onto this thread's stack of nested ranges.

    Returns:
        int: the zero-based depth of the new range (negative when no profiler tracks ranges).
    """
    return int(_nvtx()._cuda_nvtx_range_push(msg))


def range_pop() -> int:
    """Pop the innermost range range_push started.

    Returns:
        int: the depth of the range that ended (negative when no profiler tracks ranges).
    """
    return int(_nvtx()._cuda_nvtx_range_pop())


def range_start(msg: str) -> int:
    """Start a range named ``msg`` that may end on another thread (with range_end).

    Returns:
        int: the range's id.
    """
    return int(_nvtx()._cuda_nvtx_range_start(msg))


def range_end(range_id: int) -> None:
    """End the range range_start returned ``range_id`` for."""
    _nvtx()._cuda_nvtx_range_end(range_id)


def mark(msg: str) -> None:
    """An instantaneous event named ``msg`` on the timeline."""
    _nvtx()._cuda_nvtx_mark(msg)


@contextmanager
def range(msg: str, *args: Any, **kwargs: Any) -> Iterator[None]:
    """Context manager (or decorator): a range named ``msg.format(*args, **kwargs)`` around its
    block."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
