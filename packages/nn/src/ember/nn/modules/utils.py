"""``torch.nn.modules.utils``: argument normalisers the layers share (``_pair(3) == (3, 3)``) and
:func:`consume_prefix_in_state_dict_if_present` for loading a ``DataParallel`` checkpoint."""

from __future__ import annotations

import collections.abc
from collections.abc import Callable
from itertools import repeat
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple[Any, ...]]:
    """A parser that turns a scalar into an ``n``-tuple of it and any iterable into a tuple."""

    def parse(x: Any) -> tuple[Any, ...]:
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: Any, n: int) -> tuple[Any, ...]:
    """``t`` reversed with each element repeated ``n`` times: a conv's per-dim padding as
    ``F.pad``'s last-dim-first (left, right) pairs."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size: Any, defaults: list[int]) -> Any:
    """An adaptive pool's ``output_size`` with each ``None`` replaced by the input's size there."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):], strict=False)]


def consume_prefix_in_state_dict_if_present(state_dict: dict[str, Any], prefix: str) -> None:
    """Strip ``prefix`` from the keys of ``state_dict`` that start with it, in place.

    A ``state_dict`` saved from a ``DataParallel`` / ``DistributedDataParallel`` wrapper has every
    key under ``"module."``; after ``consume_prefix_in_state_dict_if_present(sd, "module.")`` the
    bare model loads it. The ``_metadata`` attribute (per-module versions) is renamed the same
    way, its ``""`` entry (the wrapper's own) left as it is.

    Args:
        state_dict (dict): the state dict, changed in place.
        prefix (str): the prefix to remove, e.g. ``"module."``.
    """
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            # '' is the wrapper itself; 'module' (the prefix without its dot) is the wrapped model
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                metadata[key[len(prefix):]] = metadata.pop(key)
