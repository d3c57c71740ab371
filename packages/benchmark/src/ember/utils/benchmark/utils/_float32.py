"""Single-precision arithmetic helpers.

PyTorch's benchmark utilities compute a few display-only quantities (units,
significant figures, leading digits) through default-dtype, i.e. float32,
tensors.  Repeating those steps in float32 here keeps tables and reprs
identical to PyTorch's even at rounding boundaries, without touching tensors.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

_F32 = struct.Struct("<f")


def f32(x: float) -> float:
    """``x`` rounded to the nearest float32 (returned as a Python float)."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:  # beyond float32's range rounds to infinity, as a cast does
        return math.copysign(math.inf, x)


def log10(x: float) -> float:
    """float32 ``log10``: -inf at 0, nan below 0."""
    x = f32(x)
    if x == 0:
        return -math.inf
    if x < 0 or math.isnan(x):
        return math.nan
    return f32(math.log10(x))


def population_std(values: Sequence[float]) -> float:
    """Population (``unbiased=False``) standard deviation of float32-rounded values."""
    if not values:
        return math.nan
    xs = [f32(v) for v in values]
    mean = math.fsum(xs) / len(xs)
    return f32(math.sqrt(math.fsum((v - mean) ** 2 for v in xs) / len(xs)))


def round_half_even(x: float) -> float:
    """float32 round-to-nearest-even, as ``Tensor.round`` does."""
    return f32(float(round(f32(x))))
