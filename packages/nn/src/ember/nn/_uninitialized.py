"""``UninitializedParameter`` and ``UninitializedBuffer``: the placeholders a lazy module holds
until its first input tells it their shapes (re-exported by ``ember.nn.parameter``)."""

from __future__ import annotations

import weakref
from typing import Any

import ember
from ember import Tensor, _torch_function
from ember._lib import _C
from ember.nn.parameter import Parameter

# What may be done to a tensor without a shape (as PyTorch's list): ask its size (the empty one),
# dtype and device, copy into it, convert it; the descriptors (``.data``, ``.dtype``, ...) come as
# method-wrappers and are allowed too.
_ALLOWED_NAMES = ("__hash__", "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double",
                  "char", "short", "int", "long", "cuda", "cpu", "to", "get_device")
_allowed: tuple[Any, ...] = ()


def _allowed_methods() -> tuple[Any, ...]:
    """The Tensor methods above, as ``__torch_function__`` receives them (looked up once the
    Python-level ones are wrapped, which happens before the first uninitialized tensor exists)."""
    global _allowed
    if not _allowed:
        _allowed = tuple(getattr(Tensor, name) for name in _ALLOWED_NAMES)
    return _allowed


# The compiled bindings look at their arguments for ``__torch_function__`` only while some class
# taking part in it is alive; were these classes counted, every op of every program importing
# ember.nn would pay for it. So the classes are made with it disabled, and instead each
# uninitialized tensor counts itself while it lives (until materialized or collected).
def _count(t: Any) -> None:
    d = t.__dict__
    if "_uninit_count" not in d:
        _torch_function._install_tensor_methods()
        _C._add_torch_function_subclasses(1)
        fin = weakref.finalize(t, _C._add_torch_function_subclasses, -1)
        fin.atexit = False
        d["_uninit_count"] = fin


def _uncount(t: Any) -> None:
    fin = t.__dict__.pop("_uninit_count", None)
    if fin is not None:
        fin()


def _torch_function_impl(cls: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    if func in _allowed_methods() or type(func).__name__ == "method-wrapper":
        # the next class's handling: Parameter's disabled one (plain results), or Tensor's
        # (results of the uninitialized class, which count themselves too)
        result = super(UninitializedTensorMixin, cls).__torch_function__(func, types, args, kwargs or {})
        if isinstance(result, UninitializedTensorMixin):
            _count(result)
        return result
    raise ValueError(f"Attempted to use an uninitialized parameter in {func}. This error happens when you are "
                     "using a `LazyModule` or explicitly manipulating "
                     f"`torch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call `forward` with "
                     "a dummy batch to initialize the parameters before calling torch functions")


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share: no shape until
    ``materialize``, and an error on any other use (``ValueError``; ``RuntimeError`` for
    ``shape`` and ``share_memory_``)."""

    cls_to_become: Any = None
    # Disabled while the subclasses are made (so they are not counted), set below.
    __torch_function__: Any = _C._disabled_torch_function_impl

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Gives the tensor ``shape`` (uninitialized memory) and turns it into its regular class
        (``Parameter``, ``Tensor``), in place.

        Args:
            shape (tuple): the shape of the materialized tensor.
            device (ember.device, optional): its device; default the one it was made for.
            dtype (ember.dtype, optional): its dtype; default the one it was made with.

        Example::

            >>> p = nn.UninitializedParameter()
            >>> p.materialize((2, 3))
            >>> type(p).__name__, tuple(p.shape)
            ('Parameter', (2, 3))
        """
        self_: Any = self
        if device is None:
            device = self_.data.device
        if dtype is None:
            dtype = self_.data.dtype
        self_.data = ember.empty(shape, device=device, dtype=dtype)
        self_.__class__ = self.cls_to_become
        _uncount(self_)

    @property
    def shape(self) -> Any:
        """Raises RuntimeError: an uninitialized tensor has no shape yet."""
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self) -> Any:
        """Raises RuntimeError: there is no memory to share before ``materialize``."""
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, proto: Any) -> Any:
        # pickled as a fresh placeholder (its hooks are not kept, as a tensor's)
        return (type(self), (self.requires_grad,))  # type: ignore[attr-defined]


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an UninitializedParameter or UninitializedBuffer.

    Example::

        >>> from ember.nn.parameter import is_lazy
        >>> is_lazy(nn.UninitializedParameter()), is_lazy(nn.Parameter(ember.zeros(1)))
        (True, False)
    """
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):  # type: ignore[misc]
    """A Parameter whose shape is not known yet, as the lazy modules hold before their first
    forward. It can only be converted (``to``, ``float``, ...) and given a shape by
    ``materialize``, which makes it a regular :class:`~ember.nn.Parameter`; any other use raises.

    Args:
        requires_grad (bool): as Parameter's.
        device (ember.device, optional): the device it will be materialized on.
        dtype (ember.dtype, optional): the dtype it will be materialized with.

    Example::

        >>> p = nn.UninitializedParameter()
        >>> p
        <UninitializedParameter>
        >>> isinstance(p, nn.Parameter)
        True
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> UninitializedParameter:
        data = ember.empty(0, device=device, dtype=dtype)
        if requires_grad and not (data.is_floating_point() or data.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t = Tensor._make_subclass(cls, data, requires_grad)
        _count(t)
        return t  # type: ignore[no-any-return]

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass

    def __deepcopy__(self, memo: dict[int, Any]) -> UninitializedParameter:
        if id(self) in memo:
            return memo[id(self)]  # type: ignore[no-any-return]
        data: Any = self.data
        result = type(self)(self.requires_grad, data.device, data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):  # type: ignore[misc]
    """A buffer whose shape is not known yet (a lazy BatchNorm's running statistics before the
    first forward). It can only be converted and given a shape by ``materialize``, which makes
    it a regular Tensor; any other use raises.

    Args:
        requires_grad (bool): whether the materialized tensor requires grad.
        device (ember.device, optional): the device it will be materialized on.
        dtype (ember.dtype, optional): the dtype it will be materialized with.
        persistent (bool): whether the buffer is part of the module's ``state_dict``.

    Example::

        >>> b = nn.UninitializedBuffer()
        >>> b.materialize((3,))
        >>> type(b).__name__, tuple(b.shape)
        ('Tensor', (3,))
    """

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                persistent: bool = True) -> UninitializedBuffer:
        data = ember.empty(0, device=device, dtype=dtype)
        if requires_grad and not (data.is_floating_point() or data.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t = Tensor._make_subclass(cls, data, requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        _count(t)
        return t  # type: ignore[no-any-return]

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                 persistent: bool = True) -> None:
        pass


UninitializedTensorMixin.__torch_function__ = classmethod(_torch_function_impl)
