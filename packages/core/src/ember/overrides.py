"""``torch.overrides``: ``__torch_function__`` helpers for Tensor subclasses, Tensor-like types
and ``TorchFunctionMode``.

Every ember function, Tensor method and operator bound from C++ consults ``__torch_function__``
(ember/_torch_function.py holds the machinery); a Python function joins in with
:func:`wrap_torch_function` or the ``has_torch_function`` / ``handle_torch_function`` pair.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from ember._lib import _C
from ember._torch_function import (  # noqa: F401  (PyTorch's private names too)
    _get_current_function_mode,
    _get_overloaded_args,  # noqa: F401  (PyTorch's private name, used by libraries)
    _is_torch_function_mode_enabled,
    _pop_mode,
    _pop_mode_temporarily,
    _push_mode,
    dispatch,
    handle_torch_function,
)

__all__ = [
    "get_ignored_functions", "get_overridable_functions", "get_testing_overrides", "handle_torch_function",
    "has_torch_function", "resolve_name", "is_tensor_like", "is_tensor_method_or_property", "wrap_torch_function",
    "enable_reentrant_dispatch", "redispatch_function",
]

_R = TypeVar("_R")

has_torch_function: Callable[[Iterable[Any]], bool] = _C._has_torch_function
has_torch_function_unary: Callable[[Any], bool] = _C._has_torch_function_unary
has_torch_function_variadic: Callable[..., bool] = _C._has_torch_function_variadic


_dispatch = dispatch  # what the compiled bindings call (ember/_torch_function.py)


class TorchFunctionMode:
    """Overrides every ``__torch_function__``-overridable call inside ``with mode:``; inside its
    ``__torch_function__`` the mode is off, so calls go on to the next mode (or run)."""

    inner: TorchFunctionMode

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func: Callable[..., Any], types: Any, args: Any = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError

    def __enter__(self) -> TorchFunctionMode:
        _push_mode(self)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        _pop_mode()

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> TorchFunctionMode:
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every call unchanged (a base to override parts of)."""

    def __torch_function__(self, func: Callable[..., Any], types: Any, args: Any = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        return func(*args, **(kwargs or {}))


def is_tensor_like(inp: Any) -> bool:
    """True for a Tensor and for any object whose type defines ``__torch_function__``."""
    import ember

    return type(inp) is ember.Tensor or hasattr(inp, "__torch_function__")


def wrap_torch_function(dispatcher: Callable[..., Iterable[Any]]) -> Callable[[Callable[..., _R]],
                                                                              Callable[..., _R]]:
    """Makes a Python function dispatch through ``__torch_function__``; ``dispatcher`` takes the
    same arguments and returns the Tensor-likes among them."""

    def inner(func: Callable[..., _R]) -> Callable[..., _R]:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> _R:
            relevant_args = dispatcher(*args, **kwargs)
            if has_torch_function(relevant_args):
                return handle_torch_function(wrapped, relevant_args, *args, **kwargs)  # type: ignore[no-any-return]
            return func(*args, **kwargs)

        return wrapped

    return inner


# ---------------------------------------------------------------- which functions take part

# Names PyTorch lists in get_ignored_functions() that ember has: no tensor argument to dispatch on
# (factories, settings) or the dispatch machinery itself.
_IGNORED_TOP = (
    "typename", "is_tensor", "is_storage", "set_default_tensor_type", "set_default_device", "get_default_device",
    "set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "set_default_dtype", "get_default_dtype", "promote_types", "can_cast",
    "result_type", "is_grad_enabled", "set_grad_enabled", "no_grad", "enable_grad", "inference_mode",
    "is_inference_mode_enabled", "compile", "finfo", "iinfo", "from_numpy", "frombuffer", "as_tensor", "asarray",
    "tensor", "empty", "empty_like", "empty_strided", "empty_permuted", "zeros", "zeros_like", "ones", "ones_like",
    "full", "full_like", "eye", "arange", "range", "linspace", "logspace", "rand", "rand_like", "randn", "randn_like",
    "randint", "randint_like", "randperm", "tril_indices", "triu_indices", "scalar_tensor", "hamming_window",
    "hann_window", "bartlett_window", "blackman_window", "kaiser_window", "get_num_threads", "set_num_threads",
    "get_num_interop_threads", "set_num_interop_threads", "autocast", "is_autocast_enabled", "set_printoptions",
    "set_flush_denormal", "set_warn_always", "is_warn_always_enabled", "vmap", "cond", "load", "save",
)
_IGNORED_TENSOR = (
    "__new__", "__init_subclass__", "__torch_function__", "__class__", "__dict__", "__hash__", "__repr__",
    "__str__", "__format__", "__reduce_ex__", "__setstate__", "__deepcopy__", "__weakref__", "__module__",
    "__doc__", "__array__", "__array_wrap__", "__array_priority__", "as_subclass", "_make_subclass", "data_ptr",
    "storage_offset", "untyped_storage", "_base", "_version", "_is_view", "__dlpack__", "__dlpack_device__",
)
_NAMESPACE_MODULES = ("ember", "ember.nn.functional", "ember.linalg", "ember.fft", "ember.special")


def _public_callables(obj: Any) -> Iterator[tuple[str, Any]]:
    for name in dir(obj):
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # noqa: BLE001 - a lazy name that fails to load is simply not listed
            continue
        if callable(value) and not isinstance(value, type):
            yield name, value


@functools.lru_cache(None)
def get_ignored_functions() -> set[Callable[..., Any]]:
    """Public functions that take no part in ``__torch_function__`` (no tensor argument, or the
    machinery itself)."""
    import ember

    out: set[Any] = set()
    for name in _IGNORED_TOP:
        f = getattr(ember, name, None)
        if f is not None:
            out.add(f)
    for name in _IGNORED_TENSOR:
        f = ember.Tensor.__dict__.get(name) or getattr(ember.Tensor, name, None)
        if callable(f):
            out.add(getattr(ember.Tensor, name))
    return out


@functools.lru_cache(None)
def _overridable() -> tuple[dict[Any, list[Callable[..., Any]]], dict[Any, str]]:
    import importlib

    import ember

    ignored = get_ignored_functions()
    table: dict[Any, list[Callable[..., Any]]] = {}
    names: dict[Any, str] = {}
    for modname in _NAMESPACE_MODULES:
        mod = importlib.import_module(modname)
        prefix = "torch" + modname[len("ember"):]
        for name, f in _public_callables(mod):
            if f in ignored or getattr(f, "__module__", "") == "typing":
                continue
            table.setdefault(mod, []).append(f)
            names.setdefault(f, f"{prefix}.{name}")
    for name, f in _public_callables(ember.Tensor):
        if name in _IGNORED_TENSOR:
            continue
        table.setdefault(ember.Tensor, []).append(f)
        names.setdefault(f, f"torch.Tensor.{name}")
    return table, names


def get_overridable_functions() -> dict[Any, list[Callable[..., Any]]]:
    """Namespace (module or ``Tensor``) -> the functions in it that ``__torch_function__`` overrides."""
    return _overridable()[0]


def resolve_name(f: Callable[..., Any]) -> str | None:
    """The readable name (``torch.add``, ``torch.Tensor.add``) of a function ``__torch_function__``
    receives, or None."""
    return _overridable()[1].get(f)


def is_tensor_method_or_property(func: Callable[..., Any]) -> bool:
    """True for a Tensor method (or a property's ``__get__``), as ``__torch_function__`` receives it."""
    import ember

    return func in get_overridable_functions()[ember.Tensor] or getattr(func, "__name__", None) == "__get__"


def get_testing_overrides() -> dict[Callable[..., Any], Callable[..., Any]]:
    """Each overridable function -> a dummy taking any arguments and returning -1 (for tests of
    ``__torch_function__`` coverage)."""
    return {f: (lambda *args, **kwargs: -1) for fs in get_overridable_functions().values() for f in fs}


@contextlib.contextmanager
def enable_reentrant_dispatch() -> Iterator[None]:
    """PyTorch re-enters its Python dispatch key here; ember has no dispatch keys (a no-op)."""
    yield


def redispatch_function(func: Callable[..., Any], types: Any, args: Any, kwargs: dict[str, Any] | None) -> Any:
    """Runs ``func`` again through ``__torch_function__`` of the remaining modes and arguments."""
    return func(*args, **(kwargs or {}))

