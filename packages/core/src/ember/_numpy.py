"""NumPy interop without importing NumPy at ``import ember`` time."""

from __future__ import annotations

import warnings
from typing import Any

from ember._lib import _C

_FROM_NP = {
    "b1": _C.bool, "u1": _C.uint8, "i1": _C.int8, "i2": _C.int16, "i4": _C.int32, "i8": _C.int64,
    "u2": _C.uint16, "u4": _C.uint32, "u8": _C.uint64,
    "f2": _C.float16, "f4": _C.float32, "f8": _C.float64, "c8": _C.complex64, "c16": _C.complex128,
}
_TO_NP = {
    _C.bool: "|b1", _C.uint8: "|u1", _C.int8: "|i1", _C.int16: "<i2", _C.int32: "<i4",
    _C.int64: "<i8", _C.float16: "<f2", _C.float32: "<f4", _C.float64: "<f8",
    _C.complex64: "<c8", _C.complex128: "<c16", _C.uint16: "<u2", _C.uint32: "<u4", _C.uint64: "<u8",
}


def from_numpy(a: Any) -> Any:
    """Create a tensor that shares memory with the NumPy array ``a``."""
    import numpy as np

    if not isinstance(a, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(a).__name__})")
    key = a.dtype.str[1:]
    if key not in _FROM_NP or not a.dtype.isnative:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{a.dtype.type.__name__}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
            "uint64, uint32, uint16, uint8, and bool."
        )
    if any(s < 0 for s in a.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) "
        )
    if any(s % a.itemsize for s in a.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    if not a.flags.writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You may "
            "want to copy the array to protect its data or make it writable before converting it to "
            "a tensor. This type of warning will be suppressed for the rest of this program.",
            UserWarning,
            stacklevel=2,
        )
    ptr = a.__array_interface__["data"][0]
    strides = [s // a.itemsize for s in a.strides]
    return _C._from_buffer(ptr, a.nbytes, a.shape, strides, _FROM_NP[key], a)


class _ArrayView:
    """Presents a tensor's memory to NumPy; the array keeps this (and the tensor) alive."""

    __slots__ = ("_t", "__array_interface__")

    def __init__(self, t: Any) -> None:
        self._t = t
        item = t.element_size()
        self.__array_interface__ = {
            "shape": tuple(t.shape),
            "typestr": _TO_NP[t.dtype],
            "data": (t.data_ptr(), False),
            "strides": tuple(s * item for s in t.stride()),
            "version": 3,
        }


def to_numpy(t: Any, force: bool = False) -> Any:
    """``Tensor.numpy()``: an ndarray sharing the tensor's memory."""
    import numpy as np

    if t.requires_grad and not force:
        raise RuntimeError(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
        )
    if t.is_conj():
        raise RuntimeError(
            "Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() instead."
        )
    if t.device.type != "cpu":
        raise TypeError(
            f"can't convert {t.device.type} device type tensor to numpy. Use Tensor.cpu() to copy "
            "the tensor to host memory first."
        )
    if t.dtype not in _TO_NP:
        name = {_C.bfloat16: "BFloat16", _C.complex32: "ComplexHalf"}.get(t.dtype, str(t.dtype))
        raise TypeError(f"Got unsupported ScalarType {name}")
    if force and t.requires_grad:
        t = t.detach()
    return np.asarray(_ArrayView(t))
