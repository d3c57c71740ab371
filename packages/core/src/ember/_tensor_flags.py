"""Tensor flags PyTorch has that ember answers plainly: ``is_neg`` / ``resolve_neg`` (ember makes no
lazily negated views, so no tensor carries the negative bit) and ``is_distributed`` (a tensor is
never a distributed one); the function and method forms, and ``Tensor.record_stream``."""

from __future__ import annotations

from typing import Any

from ember._argcheck import check_names
from ember._tensor import Tensor

__all__ = ["is_distributed", "is_neg", "resolve_neg"]


def is_neg(input: Tensor) -> bool:
    """is_neg(input) -> bool

    Whether ``input`` is a lazily negated view (PyTorch's negative bit, set by ``conj`` of some
    views). ember makes no such views, so this is always False.

    Example::

        >>> ember.is_neg(ember.ones(2))
        False
    """
    return False


def resolve_neg(input: Tensor) -> Tensor:
    """resolve_neg(input) -> Tensor

    ``input`` with a pending negation applied. Without the negative bit (always, in ember)
    this is ``input`` itself.

    Example::

        >>> x = ember.ones(2)
        >>> ember.resolve_neg(x) is x
        True
    """
    return input


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
    raise NotImplementedError("Could not run 'aten::record_stream' with arguments from the 'CPU' backend.")


check_names(globals(), __all__)


def install() -> None:
    for fn in (is_neg, resolve_neg, is_distributed, record_stream):
        if fn.__name__ not in vars(Tensor):
            setattr(Tensor, fn.__name__, fn)
