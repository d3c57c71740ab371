"""Tensor methods (and their in-place forms) over the composite top-level functions of
_composite_*.py, plus the small method forms PyTorch has: sum_to_size, new_empty_strided,
as_strided_, __rdiv__, narrow_copy, logit/logit_."""

from __future__ import annotations

from typing import Any

import ember
from ember._composite_pointwise import _pretty
from ember._lib import _C
from ember._tensor import Tensor

_METHODS = ("addbmm", "addmv", "addr", "as_strided_scatter", "corrcoef", "cov", "cummax", "cummin", "diagflat",
            "diagonal_scatter", "diff", "dist", "dsplit", "float_power", "frexp", "gcd", "hash_tensor", "histogram",
            "hsplit", "index_reduce", "inner", "lcm", "ldexp", "logcumsumexp", "logit", "nan_to_num", "nanquantile",
            "nextafter", "positive", "prelu", "quantile", "renorm", "select_scatter", "sgn", "sinc", "slice_scatter",
            "stft", "istft", "vdot", "vsplit")
_INPLACE = ("addbmm", "addmv", "addr", "float_power", "gcd", "index_reduce", "lcm", "ldexp", "logit", "nan_to_num",
            "nextafter", "renorm", "sgn", "sinc")


def _method(name: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return getattr(ember, name)(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"See ember.{name}."
    return method


def _inplace(name: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if name == "float_power" and self.dtype != ember.float64:
            raise RuntimeError(f"the base given to float_power_ has dtype {_pretty(self.dtype)} but the operation's "
                               "result requires dtype Double")
        result = getattr(ember, name)(self, *args, **kwargs)
        if not ember.can_cast(result.dtype, self.dtype):
            raise RuntimeError(f"result type {_pretty(result.dtype)} can't be cast to the desired output type "
                               f"{_pretty(self.dtype)}")
        return self.copy_(result)

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In-place ember.{name}."
    return method


def sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """self summed down to size (which self's shape must expand from)."""
    shape = list(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple, ember.Size)) else list(size)
    if ember.broadcast_shapes(shape, self.shape) != self.shape:
        raise RuntimeError(f"size {{{', '.join(map(str, shape))}}} is not expandable to size "
                           f"{{{', '.join(map(str, self.shape))}}}.")
    lead = self.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and self.shape[lead + i] != 1]
    out = self.sum(dims, keepdim=True) if dims else self
    return out.reshape(shape) if lead or dims else out


def new_empty_strided(self: Tensor, size: Any, stride: Any, *, dtype: Any = None, layout: Any = None,
                      device: Any = None, pin_memory: bool | None = False, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor with the given size and stride, self's dtype and device unless given."""
    return ember.empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                               pin_memory=bool(pin_memory), requires_grad=requires_grad)


def as_strided_(self: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """self re-viewed in place with the given size, stride and storage offset."""
    return _C._set_(self, self.as_strided(size, stride, storage_offset))


def __rdiv__(self: Tensor, other: Any) -> Tensor:
    """other / self (Python 2's name for __rtruediv__, which PyTorch keeps)."""
    return self.__rtruediv__(other)


def narrow_copy(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    """A contiguous copy of self.narrow(dim, start, length)."""
    return ember.narrow_copy(self, dim, start, length)


# torch.<name>_ at top level as well as the method (ember exports these).
TOPLEVEL_INPLACE = ("gcd", "lcm", "ldexp", "logit", "nan_to_num", "sinc")


def toplevel_inplace() -> dict[str, Any]:
    """torch.gcd_ and friends: the in-place methods as functions."""
    return {f"{n}_": _inplace(n) for n in TOPLEVEL_INPLACE}


def install() -> None:
    for name in _METHODS:
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _method(name))
    for name in _INPLACE:
        if not hasattr(Tensor, f"{name}_"):
            setattr(Tensor, f"{name}_", _inplace(name))
    for fn in (sum_to_size, new_empty_strided, __rdiv__, narrow_copy):
        if not hasattr(Tensor, fn.__name__):
            setattr(Tensor, fn.__name__, fn)
    Tensor.as_strided_ = as_strided_
