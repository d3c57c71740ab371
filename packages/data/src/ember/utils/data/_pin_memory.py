"""``pin_memory=True``: copy batches into page-locked memory for fast host-to-device
copies. Only meaningful with an accelerator; without one the option is ignored (with a
warning), as in PyTorch on a CPU-only machine."""

from __future__ import annotations

import collections.abc
import copy
import warnings
from typing import Any

import ember


def _accelerator_available() -> bool:
    accelerator = getattr(ember, "accelerator", None)
    if accelerator is not None and hasattr(accelerator, "is_available"):
        return bool(accelerator.is_available())
    cuda = getattr(ember, "cuda", None)
    return bool(cuda is not None and cuda.is_available())


def enabled(pin_memory: bool, pin_memory_device: str) -> bool:
    """Whether batches will really be pinned; warns about ignored options."""
    if pin_memory and pin_memory_device:
        warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as the device,"
                      f"ignore pin_memory_device='{pin_memory_device}'.", stacklevel=4)
    if pin_memory and not _accelerator_available():
        warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                      "then device pinned memory won't be used.", stacklevel=4)
        return False
    return bool(pin_memory)


def pin_memory(data: Any) -> Any:
    """``data`` with every tensor (also inside mappings, namedtuples and sequences, or any
    object with a ``pin_memory()`` method) replaced by its pinned copy."""
    if isinstance(data, ember.Tensor):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        values = {k: pin_memory(v) for k, v in data.items()}
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update(values)
                return clone
            return type(data)(values)
        except TypeError:
            return values
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(pin_memory(v) for v in data))
    if isinstance(data, tuple):
        return [pin_memory(v) for v in data]
    if isinstance(data, collections.abc.Sequence):
        values_list = [pin_memory(v) for v in data]
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, v in enumerate(values_list):
                    clone[i] = v
                return clone
            return type(data)(values_list)
        except TypeError:
            return values_list
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
