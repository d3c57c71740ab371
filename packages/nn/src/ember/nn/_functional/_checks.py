"""Checks aten's kernels make before computing, shared by the composite ``nn.functional`` functions.

ember composes many functionals from differentiable ops, which would accept what PyTorch's one
fused kernel refuses: an integer input to a float-only kernel (its dispatch macro's
NotImplementedError) or a float argument that does not fit the kernel's compute type
(c10::checked_convert's overflow error). One helper per rule, so each function states which
kernel it stands for instead of repeating the test.
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember import Tensor
from ember._argcheck import parse_int64  # noqa: F401 - the parser's rule lives in core, shared
from ember._dtype_names import meta_name as _meta_name

_FLOAT_MAX = 3.4028234663852886e38
_HALF_MAX = 65504.0
_BF16_MAX = 3.3895313892515355e38


def scalar_name(t: Tensor | Any) -> str:
    """aten's ScalarType name ('Long', 'Float', 'Bool') of a tensor or dtype, as its dispatch errors print it."""
    if not isinstance(t, Tensor):
        t = ember.empty(0, dtype=t)
    return t.type().split(".")[-1].replace("Tensor", "")


def float_kernel(input: Tensor | Any, kernel: str, also: tuple = ()) -> None:
    """The NotImplementedError of a kernel dispatched over floating types only (AT_DISPATCH_FLOATING_TYPES...),
    for a tensor or the dtype a TensorIterator computes in (e.g. the promoted type of a loss's two inputs)."""
    dtype = input.dtype if isinstance(input, Tensor) else input
    if not dtype.is_floating_point and dtype not in also:  # also: the other dtypes its macro names
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_name(dtype)}\'')


def _overflow(type_name: str) -> RuntimeError:
    return RuntimeError(f"value cannot be converted to type {type_name} without overflow")


def fits(value: Any, dtype: Any, opmath: bool = True) -> None:
    """c10::checked_convert of a Python number to the type a kernel computes in: ``opmath`` for
    float16/bfloat16 is float32 (most activation kernels), else the dtype itself. A finite float
    beyond the type's range fails; inf and NaN pass (integer types: they fail)."""
    v = float(value)
    if dtype == ember.float64:
        return
    if dtype in (ember.float32, ember.float16, ember.bfloat16):
        if dtype == ember.float32 or opmath:
            name, top = "float", _FLOAT_MAX
        else:
            name, top = ("c10::Half", _HALF_MAX) if dtype == ember.float16 else ("c10::BFloat16", _BF16_MAX)
        if math.isfinite(v) and abs(v) > top:
            raise _overflow(name)
        return
    if dtype == ember.int64 and not isinstance(value, float):
        return
    # integers: [lowest, max] compared in double, so int64's bound is 2**63 itself
    bounds = {ember.int64: ("int64_t", 63), ember.int32: ("int", 31), ember.int16: ("int16_t", 15),
              ember.int8: ("int8_t", 7)}
    if dtype in bounds:
        name, bits = bounds[dtype]
        lo, hi = -(2.0 ** bits), 2.0 ** bits if bits == 63 else 2.0 ** bits - 1
    elif dtype == ember.uint8:
        name, lo, hi = "uint8_t", 0.0, 255.0
    else:
        return
    if not lo <= v <= hi:  # NaN fails too
        raise _overflow(name)


def meta_name(t: Tensor) -> str:
    """A tensor's dtype as aten prints a caffe2::TypeMeta ('float', 'long int') in its messages."""
    return _meta_name(t.dtype)


def refuse_complex_autograd(name: str, *tensors: Tensor | None) -> None:
    """PyTorch's refusal for an aten op whose derivative is not enabled for complex results:
    "<name> does not support automatic differentiation for outputs with complex dtype."."""
    if ember.is_grad_enabled() and any(t is not None and t.is_complex() for t in tensors) \
            and any(t is not None and t.requires_grad for t in tensors):
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs with complex dtype.")
