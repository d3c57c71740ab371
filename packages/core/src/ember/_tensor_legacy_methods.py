"""Tensor methods PyTorch keeps for old code and for tools: the Python 2 names (__div__, __idiv__,
__long__, __nonzero__), __reversed__, __setstate__ (legacy pickles), apply_/map_/map2_ (a Python
callable per element, as PyTorch runs them), as_subclass, const_data_ptr, dim_order, is_pinned /
pin_memory (CPU answers), is_set_to, new (the legacy constructor), the deprecated out-of-place
resize / resize_as, module_load, and the method forms of nonzero_static and the unsafe splits."""

from __future__ import annotations

import functools
import operator
import warnings
from typing import Any

import ember
from ember._lib import _C
from ember._tensor import Tensor
from ember._tensor_composite import _method

_LEGACY_NAMES = {ember.float32: "FloatTensor", ember.float64: "DoubleTensor", ember.float16: "HalfTensor",
                 ember.bfloat16: "BFloat16Tensor", ember.int64: "LongTensor", ember.int32: "IntTensor",
                 ember.int16: "ShortTensor", ember.int8: "CharTensor", ember.uint8: "ByteTensor",
                 ember.bool: "BoolTensor"}


def __div__(self: Tensor, other: Any) -> Tensor:
    """``self / other`` (Python 2's name for ``__truediv__``, which PyTorch keeps)."""
    return self.__truediv__(other)


def __idiv__(self: Tensor, other: Any) -> Tensor:
    """``self /= other`` in place (Python 2's name for ``__itruediv__``)."""
    return self.__itruediv__(other)


def __long__(self: Tensor) -> int:
    """The single element as a Python int (Python 2's ``long``), truncated toward zero."""
    return self.__int__()


def __nonzero__(self: Tensor) -> bool:
    """The truth value of a one-element tensor (Python 2's name for ``__bool__``)."""
    return self.__bool__()


def __reversed__(self: Tensor) -> Tensor:
    """The tensor flipped along dim 0 (a 0-d tensor is returned as it is), for ``reversed()``."""
    return self if self.dim() == 0 else self.flip(0)


def __setstate__(self: Tensor, state: Any) -> None:
    """Restores a tensor pickled by old PyTorch versions: ``(requires_grad, _, hooks)``, the
    4-tuple of ``set_``'s arguments, or the 5-tuple of a pickled Variable (data first)."""
    if not self.is_leaf:
        raise RuntimeError("__setstate__ can be only called on leaf Tensors")
    if len(state) == 4:
        self.set_(*state)
        return
    if len(state) == 5:
        with ember.no_grad():
            _C._set_(self, state[0])
        state = (state[3], state[4], state[2])
    requires_grad, _, hooks = state
    if not isinstance(requires_grad, bool):
        raise RuntimeError("requires_grad must be a bool")
    self.requires_grad_(requires_grad)
    del hooks  # hooks are never serialized (PyTorch's note: setting them is a no-op)


def _no_grad_check(name: str, *tensors: Tensor) -> None:
    if ember.is_grad_enabled() and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")


def _type_check(name: str, self: Tensor, other: Tensor, what: str) -> None:
    if other.dtype != self.dtype:
        raise TypeError(f"{name}: expected torch.{_LEGACY_NAMES.get(self.dtype)} for {what} "
                        f"(got torch.{_LEGACY_NAMES.get(other.dtype)})")


def _store(self: Tensor, values: list[Any]) -> Tensor:
    with ember.no_grad():
        self.copy_(ember.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def apply_(self: Tensor, callable: Any) -> Tensor:
    """apply_(callable) -> Tensor

    Replaces each element ``v`` of ``self`` by ``callable(v)``, a Python call per element (as
    PyTorch does: slow, meant for small tensors and quick experiments).

    Args:
        callable (Callable): takes a Python number, returns a number of self's kind.

    Returns:
        Tensor: ``self``.

    Example::

        >>> ember.tensor([1., 2., 3.]).apply_(lambda v: v * v)
        tensor([1., 4., 9.])
    """
    _no_grad_check("apply_", self)
    return _store(self, [callable(v) for v in self.reshape(-1).tolist()])


def map_(self: Tensor, tensor: Tensor, callable: Any) -> Tensor:
    """map_(tensor, callable) -> Tensor

    Replaces each element ``a`` of ``self`` by ``callable(a, b)``, ``b`` the matching element of
    ``tensor`` broadcast to self's shape (same dtype as self); a Python call per element.

    Args:
        tensor (Tensor): the second operand, broadcastable to ``self``.
        callable (Callable): takes two Python numbers, returns one.

    Returns:
        Tensor: ``self``.

    Example::

        >>> ember.tensor([1., 2.]).map_(ember.tensor([10., 20.]), lambda a, b: a + b)
        tensor([11., 22.])
    """
    _no_grad_check("map_", self, tensor)
    _type_check("map_", self, tensor, "'other'")
    other = tensor.expand(self.shape).reshape(-1).tolist()
    return _store(self, [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other)])


def map2_(self: Tensor, x: Tensor, y: Tensor, callable: Any) -> Tensor:
    """map2_(x, y, callable) -> Tensor

    Like ``map_`` with two other tensors: each element ``a`` of ``self`` becomes
    ``callable(a, b, c)``, ``b`` and ``c`` from ``x`` and ``y`` broadcast to self's shape.

    Args:
        x (Tensor): the second operand (self's dtype).
        y (Tensor): the third operand (self's dtype).
        callable (Callable): takes three Python numbers, returns one.

    Returns:
        Tensor: ``self``.

    Example::

        >>> ember.tensor([1., 2.]).map2_(ember.tensor([3., 4.]), ember.tensor([2.]), lambda a, b, c: a + b * c)
        tensor([ 7., 10.])
    """
    _no_grad_check("map2_", self, x, y)
    _type_check("map2_", self, x, "argument 'x'")
    _type_check("map2_", self, y, "argument 'y'")
    bs, cs = x.expand(self.shape).reshape(-1).tolist(), y.expand(self.shape).reshape(-1).tolist()
    return _store(self, [callable(a, b, c) for a, b, c in zip(self.reshape(-1).tolist(), bs, cs)])


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """as_subclass(cls) -> Tensor

    An alias of ``self`` (same memory, attached to the autograd graph) whose Python class is
    ``cls``, a subclass of ``ember.Tensor``.

    Args:
        cls (type): a subclass of ``ember.Tensor``.

    Returns:
        Tensor: the alias, an instance of ``cls``.

    Example::

        >>> class Tagged(ember.Tensor):
        ...     pass
        >>> type(ember.ones(2).as_subclass(Tagged)).__name__
        'Tagged'
    """
    if not (isinstance(cls, type) and issubclass(cls, _C.TensorBase)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        "Make sure your class inherits from Tensor.")
    out = ember.alias(self)
    if cls is not type(out):
        out.__class__ = cls
    return out


def const_data_ptr(self: Tensor) -> int:
    """const_data_ptr() -> int

    The address of the tensor's first element, for reading (``data_ptr`` for writing; on the
    CPU both are the same address).

    Returns:
        int: the address.

    Example::

        >>> t = ember.ones(3)
        >>> t.const_data_ptr() == t.data_ptr()
        True
    """
    return self.data_ptr()


def _order_of(shape: Any, strides: Any, a: int, b: int) -> int:
    """-1 when dim a is inner to dim b in memory, 1 when outer, 0 when memory cannot tell."""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0
    if sa == sb:
        return 0 if shape[b] >= shape[a] else 1
    return -1 if sb > sa else 1


def _physical_order(t: Tensor) -> tuple[list[int], bool]:
    """Dims from outermost to innermost, as TensorIterator orders an output, and whether that
    order is not strictly fixed by the strides."""
    n = t.dim()
    if n <= 1:
        return list(range(n)), False
    contiguous = t.is_contiguous()
    channels_last = n == 4 and t.is_contiguous(memory_format=ember.channels_last)
    if contiguous and not channels_last:
        return list(range(n)), False
    if channels_last and not contiguous:
        return [0, 2, 3, 1], False
    shape, strides = t.shape, t.stride()
    perm = list(range(n - 1, -1, -1))  # innermost first while sorting (a stable insertion sort)
    for i in range(1, n):
        j = i
        for k in range(i - 1, -1, -1):
            c = _order_of(shape, strides, perm[k], perm[j])
            if c > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif c < 0:
                break
    loose = any(_order_of(shape, strides, perm[i], perm[i + 1]) != -1 for i in range(n - 1))
    return perm[::-1], loose


def dim_order(self: Tensor, *, ambiguity_check: bool | list[Any] = False) -> tuple[int, ...]:
    """dim_order(*, ambiguity_check=False) -> tuple

    The order the dims are laid out in memory, outermost first: ``(0, 1, 2, 3)`` for a
    contiguous 4-d tensor, ``(0, 2, 3, 1)`` for channels-last. Size-1 dims and equal strides
    leave the order open: with ``ambiguity_check=True`` that raises RuntimeError; with a list of
    memory formats it raises unless the tensor is in exactly one of them.

    Args:
        ambiguity_check (bool or list of ember.memory_format): how to treat an order the strides do not fix.

    Returns:
        tuple of ints: the dims, outermost first.

    Example::

        >>> ember.empty(2, 3, 5, 7).transpose(1, 2).dim_order()
        (0, 2, 1, 3)
    """
    if not isinstance(ambiguity_check, bool) and not (
            isinstance(ambiguity_check, list) and all(isinstance(f, _C.memory_format) for f in ambiguity_check)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    strides = self.stride()
    several = any(a == b for a, b in zip(strides, strides[1:])) or any(s == 1 for s in self.shape)
    if check and several and sum(_in_format(self, f) for f in formats) != 1:
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                           "memory formats.")
    order, loose = _physical_order(self)
    if loose and ambiguity_check:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(order)


def _in_format(t: Tensor, fmt: Any) -> bool:
    try:
        return bool(t.is_contiguous(memory_format=fmt))
    except RuntimeError:
        return False


def is_pinned(self: Tensor, device: Any = None) -> bool:
    """is_pinned(device=None) -> bool

    Whether the tensor is in pinned (page-locked) host memory, which a GPU copies from and to
    without waiting (``non_blocking=True``). Without CUDA, never.

    Args:
        device (ember.device or str, optional): the accelerator asked about.

    Returns:
        bool: whether its memory is pinned.

    Example::

        >>> ember.ones(2).is_pinned()
        False
    """
    return bool(_C._is_pinned(self))


def pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """pin_memory(device=None) -> Tensor

    A copy of the tensor in pinned (page-locked) host memory (the tensor itself when it is pinned
    already), which a GPU copies from and to without waiting (``non_blocking=True``). Without a
    GPU it raises the RuntimeError PyTorch gives.

    Args:
        device (ember.device or str, optional): the accelerator to pin for.

    Returns:
        Tensor: the pinned copy.

    Example::

        >>> try:
        ...     ember.ones(2).pin_memory()
        ... except RuntimeError as e:
        ...     print(e)
        Cannot access accelerator device when none is available.
    """
    if device is not None and _C.device(device).type == "cpu":
        raise RuntimeError("CPU device type not an accelerator.")
    if self.device.type == "meta":
        return _C._pin_memory(self)  # PyTorch's refusal, naming the meta type
    if not _C._cuda_is_compiled() or _C._cuda_device_count() == 0:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if _C._is_pinned(self):
        return self
    return _C._pin_memory(self)


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """is_set_to(tensor) -> bool

    Whether ``self`` and ``tensor`` view the same memory the same way: same start address,
    sizes and strides.

    Args:
        tensor (Tensor): the tensor compared with.

    Returns:
        bool: True when both are the same view of the same memory.

    Example::

        >>> x = ember.ones(2, 3)
        >>> x.is_set_to(x.view(2, 3)), x.is_set_to(x.view(6))
        (True, False)
    """
    if not isinstance(tensor, _C.TensorBase):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not {type(tensor).__name__}")
    return (self.data_ptr() == tensor.data_ptr() and self.shape == tensor.shape and self.stride() == tensor.stride()
            and self.dtype == tensor.dtype)


def new(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """new(*args, device=None) -> Tensor

    The legacy constructor with self's dtype, on self's device: no argument gives an empty tensor,
    sizes give an uninitialized tensor, a sequence gives its values, a tensor of self's dtype and
    device type gives an alias.

    Args:
        args: sizes, a ``Size``, a sequence of numbers, or a tensor.
        device (ember.device, optional): a device of self's device type (another CUDA device).

    Returns:
        Tensor: the new tensor.

    Example::

        >>> ember.tensor([1, 2]).new([3.7, 4.2])
        tensor([3, 4])
    """
    from ember._legacy_types import legacy_new

    return legacy_new(self.dtype, args, dict(kwargs), self.device)


def _resize(self: Tensor, sizes: tuple[Any, ...]) -> Tensor:
    total = functools.reduce(operator.mul, sizes, 1)  # PyTorch's product: a tuple argument never matches
    if total != self.numel():
        have = "x".join(str(s) for s in self.shape)
        raise RuntimeError(f"requested resize to {'x'.join(str(s) for s in sizes)} ({total} elements in total), but "
                           f"the given tensor has a size of {have} ({self.numel()} elements). autograd's resize can "
                           "only change the shape of a given tensor, while preserving the number of elements. ")
    return self.contiguous().view(*sizes)


def resize(self: Tensor, *sizes: Any) -> Tensor:
    """resize(*sizes) -> Tensor

    Deprecated out-of-place resize: the tensor's elements (in row-major order) in the shape
    ``sizes``, which must hold exactly as many elements; it records gradients.

    Args:
        sizes (ints): the new shape.

    Returns:
        Tensor: the reshaped tensor.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     ember.arange(6).resize(2, 3)
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _resize(self, sizes)


def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """resize_as(tensor) -> Tensor

    Deprecated out-of-place ``resize`` to the shape of ``tensor``.

    Args:
        tensor (Tensor): the tensor whose shape is taken.

    Returns:
        Tensor: the reshaped tensor.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     y = ember.arange(4).resize_as(ember.empty(2, 2))
        >>> y.shape, str(caught[0].message)
        (torch.Size([2, 2]), 'non-inplace resize_as is deprecated')
    """
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _resize(self, tuple(tensor.shape))


def module_load(self: Tensor, other: Any, assign: bool = False) -> Tensor:
    """module_load(other, assign=False) -> Tensor

    How ``other`` (a state-dict value) is loaded into ``self`` (a module's parameter or buffer)
    when ``load_state_dict`` swaps tensors: ``self.copy_(other).detach()``, or with
    ``assign=True`` just ``other.detach()``.

    Args:
        other (Tensor): the value from the state dict.
        assign (bool): the ``assign`` argument of ``load_state_dict``.

    Returns:
        Tensor: the tensor to swap in.

    Example::

        >>> ember.zeros(2).module_load(ember.tensor([1., 2.]))
        tensor([1., 2.])
    """
    if assign:
        return other.detach()
    return self.copy_(other).detach()


_FUNCTIONS = (__div__, __idiv__, __long__, __nonzero__, __reversed__, __setstate__, apply_, map_, map2_,
              as_subclass, const_data_ptr, dim_order, is_pinned, pin_memory, is_set_to, new, resize, resize_as,
              module_load)


def install() -> None:
    for fn in _FUNCTIONS:
        if fn.__name__ not in vars(Tensor):
            setattr(Tensor, fn.__name__, fn)
    for name in ("nonzero_static", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes"):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _method(name))
