"""Splitting a call's arguments over devices and joining the per-device results (PyTorch's
``torch.nn.parallel.scatter_gather``): tensors are chunked along a dimension, tuples, lists, dicts
and named tuples are walked, anything else is shared by every device."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from ember import Tensor
from ember.nn.parallel._functions import Gather, Scatter

__all__ = ["scatter", "scatter_kwargs", "gather"]


def is_namedtuple(obj: Any) -> bool:
    """Whether ``obj`` is an instance of a ``collections.namedtuple`` or ``typing.NamedTuple``
    class (deprecated, as in PyTorch: test it in Python directly)."""
    warnings.warn("`is_namedtuple` is deprecated, please use the python checks instead", FutureWarning,
                  stacklevel=2)
    return _is_namedtuple(obj)


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def scatter(inputs: Any, target_gpus: Sequence[Any], dim: int = 0) -> Any:
    """Splits the tensors of ``inputs`` into about equal chunks along ``dim``, one per device
    of ``target_gpus``, and returns one copy of the structure per device.

    Tuples, lists, dicts and named tuples are rebuilt around the chunks (as many copies as the
    fewest chunks any of their tensors has); other objects are shared by every copy.

    Args:
        inputs: a tensor or a structure holding tensors.
        target_gpus (Sequence[int or ember.device]): the devices.
        dim (int, optional): the dimension to split the tensors along. Default: 0.

    Returns:
        tuple or list: the per-device pieces (a tuple of chunks for a tensor, a list otherwise).
    """

    def scatter_map(obj: Any) -> Any:
        if isinstance(obj, Tensor):
            return Scatter.apply(target_gpus, None, dim, obj)
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj), strict=False)]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj), strict=False))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(scatter_map, obj), strict=False)]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()), strict=False)]
        return [obj for _ in target_gpus]

    # scatter_map refers to itself through its closure cell: clear it so that no cycle is left
    try:
        return scatter_map(inputs)
    finally:
        scatter_map = None  # type: ignore[assignment]


def scatter_kwargs(inputs: tuple[Any, ...], kwargs: dict[str, Any] | None, target_gpus: Sequence[Any],
                   dim: int = 0) -> tuple[tuple[Any, ...], tuple[dict[str, Any], ...]]:
    """Scatters the positional ``inputs`` and the ``kwargs`` of a call (see
    :func:`ember.nn.parallel.scatter`).

    Args:
        inputs (tuple): the positional arguments.
        kwargs (dict, optional): the keyword arguments.
        target_gpus (Sequence[int or ember.device]): the devices.
        dim (int, optional): the dimension to split tensors along. Default: 0.

    Returns:
        tuple: the per-device positional argument tuples and the per-device keyword dicts, the
        shorter of the two padded with empty ones.
    """
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(inputs):  # (PyTorch compares with the unscattered inputs here)
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def gather(outputs: Any, target_device: Any, dim: int = 0) -> Any:
    """Joins per-device results into one on ``target_device``: tensors are concatenated along
    ``dim``; dicts, named tuples, tuples and lists are joined element by element; None stays None.

    Args:
        outputs (Sequence): one result per device, all of one structure.
        target_device (int, ember.device or str): the device of the joined result (``"cpu"`` or
            -1 for the CPU).
        dim (int, optional): the dimension to concatenate along. Default: 0.

    Returns:
        the joined result. Scalars (0-d tensors) gathered along dim 0 become a vector, with a
        warning.
    """

    def gather_map(outputs: Any) -> Any:
        out = outputs[0]
        if isinstance(out, Tensor):
            return Gather.apply(target_device, dim, *outputs)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outputs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, gather_map([d[k] for d in outputs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outputs, strict=True)))
        return type(out)(map(gather_map, zip(*outputs, strict=True)))

    # as in scatter: clear the self-referencing closure cell
    try:
        return gather_map(outputs)
    finally:
        gather_map = None  # type: ignore[assignment]
