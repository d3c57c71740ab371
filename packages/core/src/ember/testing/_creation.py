"""``make_tensor``: random test tensors with PyTorch's value ranges, checks and layouts."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import ember
from ember._lib import _C

_INTEGRAL = (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64)
_FLOATING = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


def _bounds(dtype: Any, low: float | None, high: float | None, lowest: float, highest: float,
            default_low: float, default_high: float) -> tuple[float, float]:
    """The requested interval, defaulted, checked and clamped into what ``dtype`` can hold."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if low != low or high != high:
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATING:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=4)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    return max(low, lowest), min(high, highest)


def _with_memory_format(t: ember.Tensor, memory_format: Any) -> ember.Tensor:
    """t laid out in ``memory_format`` (channels-last strides built from a permuted contiguous copy)."""
    if memory_format == _C.channels_last and t.dim() == 4:
        return t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    if memory_format == _C.channels_last_3d and t.dim() == 5:
        return t.permute(0, 2, 3, 4, 1).contiguous().permute(0, 4, 1, 2, 3)
    return t.contiguous()


def make_tensor(*shape: Any, dtype: Any, device: Any, low: float | None = None, high: float | None = None,
                requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> ember.Tensor:
    """A tensor of ``shape`` filled with values uniformly drawn from [low, high) (as ``torch.testing.make_tensor``).

    Defaults: [-9, 9] for floats, [-9, 10) for signed ints, [0, 10) for uint8, {False, True} for bool."""
    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = tuple(shape[0])
    if requires_grad and dtype not in _FLOATING:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    if dtype == _C.bool:
        lo, hi = (0 if low is None else low), (2 if high is None else high)
        if lo != 0 or hi != 2:
            raise ValueError(f"The value interval specified by `low` and `high` is [{lo}, {hi}), but {dtype} "
                             f"only supports [0, 2)")
        result = ember.randint(0, 2, shape, device=device).to(_C.bool)
    elif dtype in _INTEGRAL:
        info = ember.iinfo(dtype)
        default_low = 0 if dtype == _C.uint8 else -9
        lo, hi = _bounds(dtype, low, high, info.min, info.max, default_low, 10)
        result = ember.randint(math.ceil(lo), math.ceil(hi), shape, device=device, dtype=dtype)
    elif dtype in _FLOATING:
        info = ember.finfo(dtype)
        lo, hi = _bounds(dtype, low, high, info.min, info.max, -9, 9)
        result = ember.empty(shape, device=device, dtype=dtype).uniform_(lo, hi)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor()."
                        " To request support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous and result.numel() > 1:
        # every other element of a tensor twice as long in the last dim
        result = ember.repeat_interleave(result, 2, dim=-1)[..., ::2]
    elif memory_format is not None:
        result = _with_memory_format(result, memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _INTEGRAL or dtype == _C.bool else ember.finfo(dtype).tiny
    if requires_grad:
        result.requires_grad_(True)
    return result
