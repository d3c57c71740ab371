"""``Parameter`` and ``Buffer``: tensors that a Module registers when assigned as attributes."""

from __future__ import annotations

from typing import Any

import ember
from ember import Tensor
from ember._lib import _C


class _ParameterMeta(type):
    """As PyTorch's: a custom Tensor subclass made a parameter stays of its class, marked
    ``_is_param``, and counts as a Parameter."""

    def __instancecheck__(self, instance: Any) -> bool:
        if self is Parameter and getattr(instance, "_is_param", False) and isinstance(instance, Tensor):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A Tensor that is a module parameter: assigning one to a Module attribute registers it."""

    # As PyTorch: ops on a parameter give plain tensors (type(p * 2) is Tensor), and parameters
    # keep the bindings on their fast path.
    __torch_function__ = _C._disabled_torch_function_impl

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = ember.empty(0)
        if requires_grad and not (data.is_floating_point() or data.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        as_parameter = getattr(type(data), "_as_parameter", None)
        if as_parameter is not None:  # a subclass with its own parameter form (DTensor stays a DTensor)
            return as_parameter(data, requires_grad)  # type: ignore[no-any-return]
        if (type(data) is not Tensor and type(data) is not Parameter
                and type(data).__torch_function__ is not _C._disabled_torch_function_impl):
            # a Tensor subclass taking part in __torch_function__ (detach keeps its class); one
            # with it disabled (DTensor, Buffer) is made a Parameter below
            t = data.detach().requires_grad_(requires_grad)
            if type(t) is not type(data):
                raise RuntimeError(f"Creating a Parameter from an instance of type {type(data).__name__} "
                                   "requires that detach() returns an instance of the same type, but return "
                                   f"type {type(t).__name__} was found instead. To use the type as a Parameter, "
                                   "please correct the detach() semantics defined by its __torch_dispatch__() "
                                   "implementation.")
            t._is_param = True
            return t  # type: ignore[return-value]
        # _make_subclass aliases data's storage (detached) and sets requires_grad on the result.
        return Tensor._make_subclass(cls, data.detach(), requires_grad)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # everything happens in __new__; accepting any arguments lets subclasses give their own
        # __new__ extra ones (bitsandbytes-style Params4bit(data, requires_grad, quant_state=...))
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result


class _BufferMeta(type):
    """As PyTorch's: a tensor flagged ``_is_buffer`` (an UninitializedBuffer) counts as a Buffer."""

    def __instancecheck__(self, instance: Any) -> bool:
        if self is Buffer and getattr(instance, "_is_buffer", False) and isinstance(instance, Tensor):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marker: assigning ``Buffer(t)`` to a Module attribute registers ``t`` as a buffer."""

    __torch_function__ = _C._disabled_torch_function_impl

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Buffer:
        if data is None:
            data = ember.empty(0)
        t = Tensor._make_subclass(cls, data.detach(), data.requires_grad)
        t.persistent = persistent
        return t

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        pass


# The lazy modules' placeholders live next door; they need Parameter, defined above.
from ember.nn._uninitialized import (  # noqa: E402
    UninitializedBuffer,
    UninitializedParameter,
    UninitializedTensorMixin,
    is_lazy,
)

__all__ = ["Parameter", "UninitializedParameter", "is_lazy", "Buffer", "UninitializedBuffer",
           "UninitializedTensorMixin"]
