"""``__torch_function__``'s machinery (the public names live in ``ember.overrides``).

The compiled bindings look at their arguments only while ``_C._torch_function_state()`` is
nonzero: a Tensor subclass whose ``__torch_function__`` is not disabled exists (counted here, in
``Tensor.__init_subclass__``), or a ``TorchFunctionMode`` is active (the stack below). A
non-Tensor that defines ``__torch_function__`` is found where the argument conversion fails.
"""

from __future__ import annotations

import warnings
from _thread import _local  # threading.local without importing threading (import time)
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ember._lib import _C

_disabled_torch_function_impl = _C._disabled_torch_function_impl


class _ModeStack(_local):
    """The active TorchFunctionModes of one thread (PyTorch's stack is thread-local too)."""

    def __init__(self) -> None:
        self.modes: list[Any] = []


_tls = _ModeStack()


class _DisableState:
    """Runs its block with __torch_function__ turned off to ``level`` (1: subclasses, 2: all)."""

    _level = 2

    def __init__(self) -> None:
        self._saved: list[int] = []

    def __enter__(self) -> None:
        prev = _C._get_torch_function_disabled()
        self._saved.append(prev)
        _C._set_torch_function_disabled(max(prev, self._level))

    def __exit__(self, *exc: object) -> None:
        _C._set_torch_function_disabled(self._saved.pop())


class DisableTorchFunctionSubclass(_DisableState):
    """``torch._C.DisableTorchFunctionSubclass``: subclasses' ``__torch_function__`` is skipped
    in the block (modes still run)."""

    _level = 1


class DisableTorchFunction(_DisableState):
    """``torch._C.DisableTorchFunction``: no ``__torch_function__`` and no mode runs in the block."""

    _level = 2


def _is_torch_function_enabled() -> bool:
    return _C._get_torch_function_disabled() == 0


def _is_torch_function_mode_enabled() -> bool:
    return bool(_tls.modes) and _C._get_torch_function_disabled() < 2


def _push_mode(mode: Any) -> None:
    _install_tensor_methods()
    _tls.modes.append(mode)
    _C._set_torch_function_modes(len(_tls.modes))


def _pop_mode() -> Any:
    if not _tls.modes:
        raise RuntimeError("Trying to pop from an empty mode stack")
    mode = _tls.modes.pop()
    _C._set_torch_function_modes(len(_tls.modes))
    return mode


def _len_torch_function_stack() -> int:
    return len(_tls.modes)


def _get_function_stack_at(i: int) -> Any:
    return _tls.modes[i]


@contextmanager
def _pop_mode_temporarily() -> Iterator[Any]:
    mode = _pop_mode()
    try:
        yield mode
    finally:
        _push_mode(mode)


def _get_current_function_mode() -> Any:
    return _tls.modes[-1] if _tls.modes else None


_Tensor: Any = None  # ember.Tensor, set when the first subclass is made (before any dispatch)
_nowrap: set[Any] = set()  # what Tensor.__torch_function__ returns as is (get_default_nowrap_functions)


def _convert(ret: Any, cls: type) -> Any:
    """PyTorch's ``torch._tensor._convert``: tensor results (in tuples and lists too) as ``cls``."""
    if cls is _Tensor:
        return ret
    if isinstance(ret, _Tensor) and not isinstance(ret, cls):
        ret = _C.alias(ret)  # Tensor.as_subclass(cls): an alias of another class
        ret.__class__ = cls
    if isinstance(ret, (tuple, list)):
        # also a return type (torch.return_types.max), which takes one iterable
        ret = type(ret)(_convert(r, cls) for r in ret)
    return ret


def _know_tensor() -> None:
    global _Tensor
    if _Tensor is None:
        from ember._tensor import Tensor

        _Tensor = Tensor
        _nowrap.update((Tensor._base.__get__, Tensor.grad.__get__))  # type: ignore[attr-defined]


def _default_nowrap_functions() -> set[Any]:
    _know_tensor()
    return _nowrap


def default_torch_function(cls: type, func: Callable[..., Any], types: Iterable[type], args: Any = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
    """``Tensor.__torch_function__``: runs ``func`` with subclass dispatch off and returns its
    tensors as ``cls``."""
    if kwargs is None:
        kwargs = {}
    if _Tensor is None:  # called directly, before any subclass
        _know_tensor()
    for t in types:
        if not issubclass(cls, t):
            return NotImplemented
    prev = _C._set_torch_function_disabled(1)  # DisableTorchFunctionSubclass, inlined (the hot path)
    if prev > 1:
        _C._set_torch_function_disabled(prev)
    try:
        ret = func(*args, **kwargs)
        if func in _nowrap:
            return ret
        return _convert(ret, cls)
    finally:
        _C._set_torch_function_disabled(prev)


def make_dispatchable(namespace: dict[str, Any]) -> None:
    """The namespace's public plain Python functions (``ember.fft.fft``, ...) take part in
    ``__torch_function__``: each becomes a ``_C._checked`` wrapper checking nothing, which hands
    the call over while a subclass or mode is about (and costs ~20 ns otherwise)."""
    import types

    module = namespace.get("__name__", "")
    for name, fn in list(namespace.items()):
        if (not name.startswith("_") and isinstance(fn, types.FunctionType)
                and fn.__module__.startswith(module)):
            wrapped = _C._checked(fn, name, (), False)
            wrapped.__module__, wrapped.__qualname__ = module, name
            namespace[name] = wrapped


# Tensor's Python methods that stay as they are (the machinery, construction, private helpers;
# __repr__, __format__, __array__ hand themselves over, __iter__ is not handed over in PyTorch).
_KEEP = frozenset({"__init_subclass__", "__new__", "__init__", "__torch_function__", "as_subclass",
                   "__class_getitem__", "__setstate__", "__repr__", "__format__", "__array__", "__iter__"})
# Those that PyTorch hands over on self alone (handle_torch_function(Tensor.f, (self,), ...)), a
# plain tensor included, so a mode sees types (Tensor,); the rest are C methods there, where a
# plain tensor is no overloaded argument.
_ON_SELF = frozenset({
    "__deepcopy__", "__reduce_ex__", "storage", "backward", "register_hook", "register_post_accumulate_grad_hook",
    "is_shared", "share_memory_", "module_load", "__reversed__", "norm", "lu", "stft", "istft", "resize",
    "resize_as", "split", "unique", "unique_consecutive", "__dir__", "__array_wrap__", "__contains__",
    "storage_type", "unflatten", "dim_order", "__dlpack__", "__dlpack_device__", "__complex__", "new_tensor",
    "untyped_storage"})
# Generated bindings that PyTorch also hands over on self alone (its own hand-written C methods).
_ON_SELF_BINDINGS = frozenset({"detach", "detach_"})
_on_self: set[Any] = set()  # the wrappers of those
_methods_installed = False


class _TensorProperty(property):
    """A property that knows its name, as PyTorch's getset descriptors do (a handler may read
    ``func.__self__.__name__`` of ``Tensor.real.__get__``)."""

    __name__: str


def _dispatching_property(cls: type, name: str, prop: property) -> property:
    """A Python-level property whose getter PyTorch hands over as Tensor.<name>.__get__ (real,
    imag, name); its setter is not handed over, nor are the ops it runs (PyTorch's is C++)."""
    fget, fset = prop.fget, prop.fset
    has_tf = _C._has_torch_function_unary

    def get(self: Any) -> Any:
        if has_tf(self):
            return handle_torch_function(getattr(cls, name).__get__, (self,), self)
        return fget(self)  # type: ignore[misc]

    def put(self: Any, value: Any) -> None:
        prev = _C._set_torch_function_disabled(2)
        try:
            fset(self, value)  # type: ignore[misc]
        finally:
            _C._set_torch_function_disabled(prev)

    wrapped = _TensorProperty(get, put if fset is not None else None, prop.fdel, prop.__doc__)
    wrapped.__name__ = name
    return wrapped


def _install_tensor_methods() -> None:
    """Tensor's Python-level methods consult ``__torch_function__`` too, from the first subclass
    or mode on (wrapped then, so nobody pays for it before)."""
    global _methods_installed
    if _methods_installed:
        return
    _methods_installed = True
    import types

    from ember._tensor import Tensor

    seen: set[str] = set()
    for klass in Tensor.__mro__:
        if klass in (object, _C.TensorBase):
            continue
        for name, fn in list(vars(klass).items()):
            if name in seen:
                continue
            seen.add(name)
            if isinstance(fn, property) and fn.fget is not None and not name.startswith("_"):
                setattr(Tensor, name, _dispatching_property(Tensor, name, fn))
            elif (isinstance(fn, types.FunctionType) and name not in _KEEP
                    and (not name.startswith("_") or (name.startswith("__") and name.endswith("__")))):
                wrapped = _C._checked(fn, name, (), False)
                wrapped.__qualname__ = f"Tensor.{name}"
                setattr(Tensor, name, wrapped)
                if name in _ON_SELF:
                    _on_self.add(wrapped)


def count_subclass(cls: type) -> None:
    """A new Tensor subclass: the bindings start looking at their arguments while one that takes
    part in ``__torch_function__`` lives (a class with the disabled impl, nn.Parameter, does not)."""
    import weakref

    if getattr(cls, "__torch_function__", None) is _disabled_torch_function_impl:
        return
    _know_tensor()
    _install_tensor_methods()
    _C._add_torch_function_subclasses(1)
    weakref.finalize(cls, _C._add_torch_function_subclasses, -1)


def _get_overloaded_args(relevant_args: Iterable[Any],
                         get_type_fn: Callable[[Any], type] | None = None) -> list[Any]:
    """PyTorch's order: subclasses before their bases, otherwise left to right; one per type."""
    if get_type_fn is None and type(relevant_args) is tuple and len(relevant_args) == 1:
        arg = relevant_args[0]  # the usual case: one overloaded argument (from a binding)
        f = getattr(type(arg), "__torch_function__", None)
        return [arg] if f is not None and f != _disabled_torch_function_impl else []
    get_type = type if get_type_fn is None else get_type_fn
    overloaded_types: set[type] = set()
    overloaded_args: list[Any] = []
    for arg in relevant_args:
        arg_type = get_type(arg)
        if (arg_type not in overloaded_types and hasattr(arg_type, "__torch_function__")
                and arg_type.__torch_function__ != _disabled_torch_function_impl):
            overloaded_types.add(arg_type)
            index = len(overloaded_args)
            for i, old in enumerate(overloaded_args):
                if issubclass(arg_type, get_type(old)):
                    index = i
                    break
            overloaded_args.insert(index, arg)
    return overloaded_args


def _run_handlers(public_api: Callable[..., Any], overloaded_args: list[Any], args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> Any:
    """The active mode, then each overloaded argument's ``__torch_function__``; NotImplemented
    when every one declined."""
    types = tuple(map(type, overloaded_args))
    if _is_torch_function_mode_enabled():
        with _pop_mode_temporarily() as mode:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for overloaded_arg in overloaded_args:
        method = overloaded_arg.__torch_function__
        if (getattr(method, "__self__", None) is overloaded_arg
                and method is not _disabled_torch_function_impl):
            warnings.warn("Defining your `__torch_function__ as a plain method is deprecated and will be an "
                          "error in future, please define it as a classmethod.", DeprecationWarning, stacklevel=3)
        result = method(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    return NotImplemented


def handle_torch_function(public_api: Callable[..., Any], relevant_args: Iterable[Any], *args: Any,
                          **kwargs: Any) -> Any:
    """``torch.overrides.handle_torch_function``: the active mode, then each overloaded
    argument's ``__torch_function__``, until one does not return ``NotImplemented``."""
    overloaded_args = _get_overloaded_args(relevant_args)
    result = _run_handlers(public_api, overloaded_args, args, kwargs)
    if result is not NotImplemented:
        return result
    func_name = f"{public_api.__module__}.{public_api.__name__}"
    msg = (f"no implementation found for '{func_name}' on types that implement __torch_function__: "
           f"{[type(arg) for arg in overloaded_args]}")
    if _is_torch_function_mode_enabled():
        msg += f" nor in mode {_get_current_function_mode()}"
    raise TypeError(msg)


# ---------------------------------------------------------------- from the compiled bindings

_resolved: dict[tuple[bool, str], Any] = {}
_NAMESPACES = ("linalg", "special", "fft", "_nn", "nested", "sparse")


def _qualified(kind: int, name: str) -> str:
    """PyTorch's name of a compiled binding in its dispatch error (torch.add, torch.Tensor.add)."""
    if kind:
        return f"torch.Tensor.{name}"
    for ns in _NAMESPACES:
        if name.startswith(f"_{ns}_"):
            return f"torch.{ns}.{ns.lstrip('_')}_{name[len(ns) + 2:]}"
    return f"torch.{name}"


def dispatch(kind: int, name: Any, overloaded: tuple[Any, ...], args: tuple[Any, ...],
             kwargs: dict[str, Any] | None) -> Any:
    """Called by a compiled binding whose arguments (or the active mode) override it. kind 0: an
    ember function (``name`` a binding's name, or the Python-level function itself), 1: a Tensor
    method, 2: an operator, which returns NotImplemented to Python when every handler declines."""
    func = _resolve(kind != 0, name)
    if not isinstance(name, str):
        if func in _on_self and args and all(a is not args[0] for a in overloaded):
            overloaded = (args[0], *overloaded)
        return handle_torch_function(func, overloaded, *args, **(kwargs or {}))
    if kind == 1 and name in _ON_SELF_BINDINGS and not overloaded:
        overloaded = (args[0],)
    overloaded_args = _get_overloaded_args(overloaded)
    result = _run_handlers(func, overloaded_args, args, kwargs or {})
    if result is not NotImplemented or kind == 2:
        return result
    if name == "__len__":  # a Python function in PyTorch: handle_torch_function's words
        raise TypeError("no implementation found for 'torch._tensor.__len__' on types that implement "
                        f"__torch_function__: {[type(a) for a in overloaded_args]}")
    lines = "".join(f"  - tensor subclass {type(a)}\n" for a in overloaded_args)
    if _is_torch_function_mode_enabled():
        lines += f"  - mode object {_get_current_function_mode()}\n"
    raise TypeError(f"Multiple dispatch failed for '{_qualified(kind, name)}'; all __torch_function__ handlers "
                    f"returned NotImplemented:\n\n{lines}\nFor more information, try re-running with "
                    "TORCH_LOGS=not_implemented")


def _resolve(is_method: bool, name: Any) -> Any:
    """The public object a binding stands for: Tensor.<name>, or ember[.<namespace>].<name>
    (a Python-level function comes as itself)."""
    if not isinstance(name, str):
        return name
    func = _resolved.get((is_method, name))
    if func is not None:
        return func
    import importlib

    import ember

    key = (is_method, name)
    if is_method and "." in name:  # a property: PyTorch passes Tensor.<name>.__get__ (__set__, __delete__)
        prop, _, slot = name.partition(".")
        func = getattr(getattr(ember.Tensor, prop), slot)
    elif is_method:
        func = getattr(ember.Tensor, name)
    else:
        for ns in _NAMESPACES:
            if name.startswith(f"_{ns}_"):
                try:
                    func = getattr(importlib.import_module(f"ember.{ns}"), name[len(ns) + 2:], None)
                except ImportError:
                    func = None
                break
        if func is None:
            func = getattr(ember, name, None)
        if func is None:
            func = getattr(_C, name)
    _resolved[key] = func
    return func


_C.DisableTorchFunctionSubclass = DisableTorchFunctionSubclass
_C.DisableTorchFunction = DisableTorchFunction
_C._is_torch_function_enabled = _is_torch_function_enabled
_C._is_torch_function_mode_enabled = _is_torch_function_mode_enabled
_C._len_torch_function_stack = _len_torch_function_stack
_C._get_function_stack_at = _get_function_stack_at
_C._push_on_torch_function_stack = _push_mode
_C._pop_torch_function_stack = _pop_mode
