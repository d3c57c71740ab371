"""Autocast for ops written in Python (nn.functional's linear and losses, ember.trace, ...).

PyTorch casts at its dispatcher, so an op on its lists is autocast whether aten implements it in
C++ or as a composite; ember's generated bindings do the same for C++ ops, and this module for
Python ones. ``ACTIVE[0]`` counts threads with CPU autocast on: the off cost of a wrapped op is
that one read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ember._lib import _C

ACTIVE = [0]


def _note_enabled(before: bool, after: bool) -> None:
    if before != after:
        ACTIVE[0] += 1 if after else -1


def _target(policy: str, tensors: list) -> Any:
    low = _C._get_autocast_cpu_dtype()
    if policy == "lower":
        return low
    if policy == "fp32":
        return _C.float32
    widest = low  # "promote": the widest eligible floating type, as PyTorch's prioritize
    for t in tensors:
        if _eligible(t) and t.dtype != widest:
            if _C.float32 in (widest, t.dtype):
                widest = _C.float32
            else:
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return widest


def _eligible(x: Any) -> bool:
    return isinstance(x, _C.TensorBase) and x.is_floating_point() and x.dtype != _C.float64


def _cast(x: Any, dtype: Any) -> Any:
    if _eligible(x) and x.dtype != dtype:
        return _C._autocast_to(x, dtype)  # the bindings' cast: leaf weights are cast once per region
    if isinstance(x, (list, tuple)) and any(isinstance(t, _C.TensorBase) for t in x):
        return type(x)(_cast(t, dtype) for t in x)
    return x


def run(policy: str, fn: Callable, args: tuple, kwargs: dict) -> Any:
    """fn(*args, **kwargs) with floating tensor arguments cast per ``policy`` and autocast off inside
    (PyTorch excludes autocast below a listed op)."""
    if not _C._is_autocast_cpu_enabled():
        return fn(*args, **kwargs)
    flat = [a for a in (*args, *kwargs.values()) if isinstance(a, _C.TensorBase)]
    dtype = _target(policy, flat)
    args = tuple(_cast(a, dtype) for a in args)
    kwargs = {k: _cast(v, dtype) for k, v in kwargs.items()}
    _C._set_autocast_cpu_enabled(False)
    try:
        return fn(*args, **kwargs)
    finally:
        _C._set_autocast_cpu_enabled(True)


def autocast_op(policy: str) -> Callable[[Callable], Callable]:
    """Decorator: the op follows autocast's ``policy`` ("lower", "fp32" or "promote")."""

    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not ACTIVE[0]:
                return fn(*args, **kwargs)
            return run(policy, fn, args, kwargs)

        return wrapper

    return deco


def cast_args(policy: str, *args: Any) -> tuple:
    """The arguments as a listed op sees them under autocast (unchanged when it is off on this thread).
    For hot Python ops that check ``ACTIVE[0]`` themselves instead of paying for the decorator."""
    if not _C._is_autocast_cpu_enabled():
        return args
    dtype = _target(policy, [a for a in args if isinstance(a, _C.TensorBase)])
    return tuple(_cast(a, dtype) for a in args)
