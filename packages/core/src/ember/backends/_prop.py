"""Module attributes with PyTorch's type checks on assignment (``cudnn.benchmark = "x"`` raises)."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any


def bool_flag(setter_name: str, default: bool, on_set: Callable[[bool], None] | None = None) -> property:
    """A module-level bool flag; assigning a non-bool raises PyTorch's RuntimeError; ``on_set``
    hands an accepted value to the kernels."""
    slot = f"_{setter_name}_value"

    def get(mod: Any) -> bool:
        return mod.__dict__.get(slot, default)

    def put(mod: Any, value: Any) -> None:
        if not isinstance(value, bool):
            raise RuntimeError(f"{setter_name} expects a bool, but got {type(value).__name__}")
        mod.__dict__[slot] = value
        if on_set is not None:
            on_set(value)

    return property(get, put)


def install(module_name: str, **props: property) -> None:
    """Give module ``module_name`` a class of its own carrying ``props`` (Python allows a ModuleType subclass)."""
    mod = sys.modules[module_name]
    cls = type(f"{module_name.rsplit('.', 1)[-1].title()}Module", (types.ModuleType,), dict(props))
    mod.__class__ = cls
