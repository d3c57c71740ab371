"""torch's multi-tensor ``_foreach_*`` ops (the optimizers' foreach path).

The C++ bodies live in csrc/autograd/foreach.cpp. PyTorch's in-place forms return the very list
(or tuple) they were given; the generated bindings build a new list, so the in-place forms
are wrapped here to hand back their argument; the fused optimizer steps return None.

PyTorch's overloads that take one number per tensor (``_foreach_add(ts, [1.0, 2.0])``, the
ScalarList forms: what its own Adam passes as step sizes), a 1-d tensor of them (addcmul /
addcdiv), a tensor beside the list (``_foreach_mul(ts, t)``) or a number raised to each tensor
(``_foreach_pow(2, ts)``) run here as one single-tensor op per tensor: the C++ bodies take the
Scalar and tensor-list forms.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import ember
from ember._lib import _C
from ember._tensor import Tensor

_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac",
          "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "sigmoid", "sign", "sin", "sinh",
          "sqrt", "tan", "tanh", "trunc")
_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "clamp_min", "clamp_max", "pow")
_INPLACE = (*(n + "_" for n in _UNARY + _BINARY), "addcmul_", "addcdiv_", "lerp_", "zero_", "copy_")
_OUT_OF_PLACE = (*_UNARY, *_BINARY, "addcmul", "addcdiv", "lerp", "norm", "max")
# The single-tensor op each list-of-numbers form runs per tensor (maximum with a number is clamp_min).
_PER_TENSOR = {"maximum": "clamp_min", "minimum": "clamp_max"}
# Where the per-tensor number goes: the argument after the tensor list(s).
_SCALARS_AT = {"addcmul": 2, "addcdiv": 2, "lerp": 1}


def _is_number(v: Any) -> bool:
    return type(v) in (float, int, bool, complex) or isinstance(v, numbers.Number)


def _per_tensor(name: str, self: Any, args: tuple, kwargs: dict) -> list[Any] | None:
    """The list-of-numbers, tensor-of-numbers, tensor and number-first forms, one op per tensor;
    None for the forms the C++ binding takes (a number, a list of tensors)."""
    short = name[len("_foreach_"):]
    inplace = short.endswith("_")
    base = short.rstrip("_")
    at = _SCALARS_AT.get(base, 0)
    if base == "pow" and not inplace and _is_number(self) and args:  # ScalarAndTensor: number ** each tensor
        if not args[0]:
            raise RuntimeError("Tensor list must have at least one tensor.")
        return [ember.pow(self, e) for e in args[0]]
    if len(args) <= at:
        return None
    scalars = args[at]
    if isinstance(scalars, (list, tuple)):
        if (scalars and not all(_is_number(v) for v in scalars)) or (at == 0 and "alpha" in kwargs):
            # a list of tensors (or add's alpha, which only the list form takes) for the C++ list form;
            # a mixed list is PyTorch's element error (the argument counted from 0)
            for i, v in enumerate(scalars):
                if not isinstance(v, Tensor):
                    raise TypeError(f"expected Tensor as element {i} in argument {at + 1}, but got "
                                    f"{type(v).__name__}")
            return None
        values = list(scalars)
    elif isinstance(scalars, Tensor) and at == 2:
        if scalars.dim() != 1:
            raise RuntimeError(f"Expected packed scalar Tensor to be of dimension 1. Got {scalars.dim()} instead.")
        if scalars.numel() != len(self):
            raise RuntimeError(f"Expected length of scalars to match input of length {len(self)} but got "
                               f"{scalars.numel()} instead.")
        values = scalars.tolist()
    elif isinstance(scalars, Tensor) and at == 0 and base in ("add", "sub", "mul", "div"):
        # the Tensor form: one 0-d tensor beside every tensor (with add / sub's alpha)
        if scalars.dim() != 0:
            raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {scalars.dim()} dimensions and "
                               f"{scalars.numel()} elements.")
        if "alpha" not in kwargs:
            return None  # the C++ Scalar form takes a 0-d tensor as its number
        return [getattr(t, short)(scalars, alpha=kwargs["alpha"]) for t in self]
    else:
        return None
    if not self:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if len(values) != len(self):
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")
    fn = _PER_TENSOR.get(base, base) + ("_" if inplace else "")
    out = []
    for i, t in enumerate(self):
        extra = [x[i] for x in args[:at]]
        if base in ("addcmul", "addcdiv"):
            out.append(getattr(t, fn)(*extra, value=values[i]))
        else:
            out.append(getattr(t, fn)(*extra, values[i]))
    return out


def _cpp_form(self: Any, args: tuple, at: int) -> bool:
    """The optimizers' calls, straight to the C++ binding: a list of tensors with a Python number or a
    list of tensors at the scalar's place (no Python per tensor, no number check per item)."""
    if len(args) <= at or not isinstance(self, (list, tuple)):
        return False
    a = args[at]
    t = type(a)
    if t is float or t is int:
        return True
    return (t is list or t is tuple) and bool(a) and isinstance(a[0], Tensor)


def _call(impl: Callable[..., Any], self: Any, args: tuple, kwargs: dict, at: int) -> Any:
    """impl(...), with PyTorch's message for a list that mixes tensors and other things."""
    try:
        return impl(self, *args, **kwargs)
    except TypeError:
        for i, v in enumerate(args[at] if len(args) > at and isinstance(args[at], (list, tuple)) else ()):
            if not isinstance(v, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument {at + 1}, but got "
                                f"{type(v).__name__}") from None
        raise


def _with_per_tensor_forms(name: str) -> Callable[..., Any]:
    impl = getattr(_C, name)
    at = _SCALARS_AT.get(name[len("_foreach_"):], 0)

    def op(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _cpp_form(self, args, at):
            return _call(impl, self, args, kwargs, at)
        out = _per_tensor(name, self, args, kwargs)
        return impl(self, *args, **kwargs) if out is None else out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}: one op per tensor of ``self`` (a list of results)."
    return op


_PER_TENSOR_FORMS = {*_BINARY, "addcmul", "addcdiv", "lerp"}


def _returning_self(name: str) -> Callable[..., Any]:
    impl = getattr(_C, name)
    forms = name[len("_foreach_"):-1] in _PER_TENSOR_FORMS
    at = _SCALARS_AT.get(name[len("_foreach_"):-1], 0)

    def op(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not forms or _cpp_form(self, args, at) or _per_tensor(name, self, args, kwargs) is None:
            _call(impl, self, args, kwargs, at)
        return self

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In place, for every tensor of ``self`` (returns ``self``): torch.{name}."
    return op


def _returning_none(name: str) -> Callable[..., Any]:
    impl = getattr(_C, name)

    def op(*args: Any, **kwargs: Any) -> None:
        impl(*args, **kwargs)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}: a whole optimizer step, one pass over each parameter (returns None)."
    return op


OPS: dict[str, Callable[..., Any]] = {
    f"_foreach_{n}": _with_per_tensor_forms(f"_foreach_{n}") if n in _PER_TENSOR_FORMS else getattr(_C, f"_foreach_{n}")
    for n in _OUT_OF_PLACE}
OPS.update({f"_foreach_{n}": _returning_self(f"_foreach_{n}") for n in _INPLACE})
OPS.update({n: _returning_none(n) for n in ("_fused_adam_", "_fused_adamw_", "_fused_sgd_")})
