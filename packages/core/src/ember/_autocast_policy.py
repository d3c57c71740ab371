"""Autocast for ops written in Python (nn.functional's linear and losses, ember.trace, ...).

PyTorch casts at its dispatcher, so an op on its lists is autocast whether aten implements it in
C++ or as a composite; ember's generated bindings do the same for C++ ops, and this module for
Python ones. An op's device type is CUDA when any tensor argument is on a GPU (PyTorch's
AutocastCUDA outranks AutocastCPU), and that device type's autocast state and list apply; only
tensors on it are cast. ``ACTIVE[0]`` counts threads with autocast on for any device type: the
off cost of a wrapped op is that one read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ember._lib import _C

ACTIVE = [0]

_BANNED_BCE = ("torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
               "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
               "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
               "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
               "safe to autocast.")


def any_enabled() -> bool:
    """Whether this thread has autocast on for some device type."""
    return bool(_C._is_autocast_enabled("cpu") or _C._is_autocast_enabled("cuda"))


def _note_enabled(before: bool, after: bool) -> None:
    """Count the thread in or out of ACTIVE when its any-device autocast state changed."""
    if before != after:
        ACTIVE[0] += 1 if after else -1


def _device_type(tensors: list) -> str:
    return "cuda" if any(t.is_cuda for t in tensors) else "cpu"


def _eligible(x: Any, device_type: str) -> bool:
    return (isinstance(x, _C.TensorBase) and x.is_floating_point() and x.dtype != _C.float64
            and x.device.type == device_type)


def _target(policy: str, tensors: list, device_type: str) -> Any:
    low = _C._get_autocast_dtype(device_type)
    if policy == "lower":
        return low
    if policy == "fp32":
        return _C.float32
    widest = low  # "promote": the widest eligible floating type, as PyTorch's prioritize
    for t in tensors:
        if _eligible(t, device_type) and t.dtype != widest:
            if _C.float32 in (widest, t.dtype):
                widest = _C.float32
            else:
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return widest


def _cast(x: Any, dtype: Any, device_type: str) -> Any:
    if _eligible(x, device_type) and x.dtype != dtype:
        return _C._autocast_to(x, dtype)  # the bindings' cast: leaf weights are cast once per region
    if isinstance(x, (list, tuple)) and any(isinstance(t, _C.TensorBase) for t in x):
        return type(x)(_cast(t, dtype, device_type) for t in x)
    return x


def _flat_tensors(values: Any) -> list:
    out = []
    for a in values:
        if isinstance(a, _C.TensorBase):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(t for t in a if isinstance(t, _C.TensorBase))
    return out


_SAME = "same"


def run(policy: str | None, fn: Callable, args: tuple, kwargs: dict, cuda_policy: str | None = _SAME) -> Any:
    """fn(*args, **kwargs) with floating tensor arguments cast per the policy of their device type
    ("lower", "fp32", "promote", "banned" or None; CUDA's defaults to the CPU's) and that device
    type's autocast off inside (PyTorch excludes autocast below a listed op)."""
    flat = _flat_tensors((*args, *kwargs.values()))
    device_type = _device_type(flat)
    pol = policy if device_type == "cpu" or cuda_policy == _SAME else cuda_policy
    if pol is None or not _C._is_autocast_enabled(device_type):
        return fn(*args, **kwargs)
    if pol == "banned":
        raise RuntimeError(_BANNED_BCE)
    dtype = _target(pol, flat, device_type)
    args = tuple(_cast(a, dtype, device_type) for a in args)
    kwargs = {k: _cast(v, dtype, device_type) for k, v in kwargs.items()}
    _C._set_autocast_enabled(device_type, False)
    try:
        return fn(*args, **kwargs)
    finally:
        _C._set_autocast_enabled(device_type, True)


def autocast_op(policy: str | None, cuda: str | None = _SAME) -> Callable[[Callable], Callable]:
    """Decorator: the op follows autocast's ``policy`` ("lower", "fp32", "promote") under CPU
    autocast and ``cuda`` (default the same; None: not autocast; "banned": an error) under CUDA's."""

    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not ACTIVE[0]:
                return fn(*args, **kwargs)
            return run(policy, fn, args, kwargs, cuda)

        return wrapper

    return deco


def cast_args(policy: str, *args: Any) -> tuple:
    """The arguments as a listed op (the same policy on both device types) sees them under
    autocast (unchanged when it is off on this thread). For hot Python ops that check
    ``ACTIVE[0]`` themselves instead of paying for the decorator."""
    flat = [a for a in args if isinstance(a, _C.TensorBase)]
    device_type = _device_type(flat)
    if not _C._is_autocast_enabled(device_type):
        return args
    dtype = _target(policy, flat, device_type)
    return tuple(_cast(a, dtype, device_type) for a in args)
