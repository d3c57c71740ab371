"""``ember.finfo`` / ``ember.iinfo``: the numerical limits of each dtype (as ``torch.finfo``)."""

from __future__ import annotations

from typing import Any

from ember._lib import _C

# dtype -> (bits, eps, max, tiny, decimal digits of precision). The values are exact binary
# constants of IEEE binary16/32/64 and bfloat16 (8 exponent bits, 7 mantissa bits).
_FLOAT = {
    _C.float16: (16, 2.0**-10, 65504.0, 2.0**-14, 3),
    _C.bfloat16: (16, 2.0**-7, (2 - 2.0**-7) * 2.0**127, 2.0**-126, 2),
    _C.float32: (32, 2.0**-23, (2 - 2.0**-23) * 2.0**127, 2.0**-126, 6),
    _C.float64: (64, 2.0**-52, (2 - 2.0**-52) * 2.0**1023, 2.0**-1022, 15),
}
_INT = {
    _C.uint8: (8, 0, 255), _C.int8: (8, -128, 127), _C.int16: (16, -(2**15), 2**15 - 1),
    _C.int32: (32, -(2**31), 2**31 - 1), _C.int64: (64, -(2**63), 2**63 - 1),
    _C.uint16: (16, 0, 2**16 - 1), _C.uint32: (32, 0, 2**32 - 1), _C.uint64: (64, 0, 2**64 - 1),
}


def _dtype_arg(fn: str, type: Any) -> Any:
    if not isinstance(type, _C.dtype):
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be torch.dtype, not {builtin_type(type).__name__}")
    return type


builtin_type = type


class _Info:
    """Read-only attributes, compared by value and unhashable (as PyTorch's)."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"attribute '{name}' of 'torch.{builtin_type(self).__name__}' objects is not writable")

    def _fields(self) -> tuple:
        return tuple(object.__getattribute__(self, n) for n in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return builtin_type(other) is builtin_type(self) and self._fields() == other._fields()  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        return not self == other


class finfo(_Info):
    """Limits of a floating-point dtype (the default dtype when none is given)."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type: Any = None, /) -> None:
        if type is None:
            type = _C.get_default_dtype()
        _dtype_arg("finfo", type)
        if type.is_complex:  # a complex dtype has its parts' limits (complex64 -> float32's)
            type = type.to_real()
        if type not in _FLOAT:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        bits, eps, mx, tiny, digits = _FLOAT[type]
        values = {"bits": bits, "eps": eps, "max": mx, "min": -mx, "tiny": tiny, "smallest_normal": tiny,
                  "resolution": 10.0**-digits, "dtype": str(type).rsplit(".", 1)[-1]}
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo(_Info):
    """Limits of an integer dtype."""

    __slots__ = ("bits", "min", "max", "dtype")

    def __init__(self, type: Any, /) -> None:
        _dtype_arg("iinfo", type)
        if type == _C.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type not in _INT:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        bits, lo, hi = _INT[type]
        for k, v in {"bits": bits, "min": lo, "max": hi, "dtype": str(type).rsplit(".", 1)[-1]}.items():
            object.__setattr__(self, k, v)

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

    __str__ = __repr__


for _cls in (finfo, iinfo):
    _cls.__module__ = "torch"  # repr of the class as PyTorch's: <class 'torch.finfo'>
