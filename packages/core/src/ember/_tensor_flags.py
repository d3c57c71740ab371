"""Tensor attributes PyTorch keeps that ember answers plainly: ``is_distributed`` (a tensor is never
one of the old THD backend's; the function and method forms) and ``Tensor.record_stream`` (only
CUDA tensors have it)."""

from __future__ import annotations

from typing import Any

from ember._argcheck import check_names
from ember._lib import _C
from ember._tensor import Tensor

__all__ = ["is_distributed"]


def is_distributed(input: Tensor) -> bool:
    """is_distributed(input) -> bool

    Whether ``input`` is a distributed tensor of the old THD backend: never.

    Example::

        >>> ember.is_distributed(ember.ones(2))
        False
    """
    return False


def record_stream(self: Tensor, stream: Any) -> None:
    """record_stream(stream) -> None

    Marks the tensor as used by ``stream``, so a caching allocator keeps its memory until the
    stream's queued work completes. Only CUDA tensors have it: on a CPU tensor it raises
    NotImplementedError, as PyTorch's does.
    """
    if self.device.type != "cuda":
        raise NotImplementedError("Could not run 'aten::record_stream' with arguments from the 'CPU' backend.")
    handle = getattr(stream, "cuda_stream", None)
    if handle is None:
        raise RuntimeError("unknown parameter type")
    _C._cuda_record_stream(self, int(handle))


check_names(globals(), __all__)


def install() -> None:
    for fn in (is_distributed, record_stream):
        if fn.__name__ not in vars(Tensor):
            setattr(Tensor, fn.__name__, fn)
