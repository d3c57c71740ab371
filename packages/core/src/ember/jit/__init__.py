"""``torch.jit`` as eager code sees it: ember has no TorchScript compiler, so this module gives
the behaviour PyTorch has with ``PYTORCH_JIT=0`` -- ``script`` and ``trace`` hand back the
function or module unchanged (it runs eagerly, with the same results), the annotations
(``ignore``, ``unused``, ``export``, ``annotate``, ``Final``, ``Attribute``) are pass-throughs,
``is_scripting()`` / ``is_tracing()`` are False and ``fork`` runs its function at once.

What needs a serialized TorchScript program -- ``save``, ``load``, ``freeze``,
``optimize_for_inference``, ``export_opnames`` -- raises ``NotImplementedError``; use
``ember.save`` / ``ember.load`` for weights.
"""

from __future__ import annotations

import builtins
import collections.abc
import contextlib
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any, Final, TypeVar  # noqa: F401  (torch.jit.Final is typing.Final)

__all__ = [
    "Attribute", "CompilationUnit", "Error", "Future", "ScriptFunction", "ScriptModule", "annotate",
    "enable_onednn_fusion", "export", "export_opnames", "fork", "freeze", "interface", "ignore", "isinstance",
    "load", "onednn_fusion_enabled", "optimize_for_inference", "save", "script", "script_if_tracing",
    "set_fusion_strategy", "strict_fusion", "trace", "trace_module", "unused", "wait",
]

_F = TypeVar("_F")


class Error(RuntimeError):
    """TorchScript's runtime error type (``torch.jit.Error``); nothing in ember raises it, but
    ``except torch.jit.Error`` clauses keep working."""


def _absent(api: str) -> NotImplementedError:
    return NotImplementedError(f"ember: torch.jit.{api} is not implemented (ember has no TorchScript; "
                               "save weights with ember.save and load them with ember.load)")


def is_scripting() -> bool:
    """False: code never runs under the TorchScript compiler in ember."""
    return False


def is_tracing() -> bool:
    """False: ember does not trace (``trace`` runs the function eagerly)."""
    return False


def script(obj: _F, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> _F:
    """Return ``obj`` unchanged: a function or module runs eagerly with the same results, as with
    PyTorch's ``PYTORCH_JIT=0`` (there is no TorchScript program to save)."""
    return obj


def trace(func: _F, example_inputs: Any = None, *args: Any, **kwargs: Any) -> _F:
    """Return ``func`` unchanged (run eagerly): the result equals the traced program's on every
    input for which tracing would be valid, and stays right where the trace would freeze
    data-dependent control flow."""
    return func


def trace_module(mod: _F, inputs: Any = None, *args: Any, **kwargs: Any) -> _F:
    """Return ``mod`` unchanged (see :func:`trace`)."""
    return mod


def script_if_tracing(fn: _F) -> _F:
    """Return ``fn`` unchanged (nothing traces in ember)."""
    return fn


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """Mark a function the compiler should leave as Python: a pass-through, usable as
    ``@ignore`` or ``@ignore(drop=True)``."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn: _F) -> _F:
    """Mark a method the compiler should replace by a raise: a pass-through in eager code."""
    return fn


def export(fn: _F) -> _F:
    """Mark a method to compile as an entry point: a pass-through in eager code."""
    return fn


def interface(obj: _F) -> _F:
    """Declare a TorchScript interface type: a pass-through in eager code."""
    return obj


def annotate(the_type: Any, the_value: _F) -> _F:
    """Give the compiler the type of ``the_value``: returns ``the_value``."""
    return the_value


def Attribute(value: _F, type: Any) -> _F:  # noqa: N802  (PyTorch's name)
    """Declare a module attribute's type for the compiler: returns ``value``."""
    return value


_BARE = {
    list: "Attempted to use list without a contained type. Please add a contained type, e.g. list[int]",
    dict: "Attempted to use dict without contained types. Please add contained type, e.g. dict[int, int]",
    tuple: "Attempted to use tuple without a contained type. Please add a contained type, e.g. tuple[int]",
}


def _matches(obj: Any, target: Any) -> bool:
    # typing forms (List[int], Dict[str, Tensor], Optional[...], Tuple[...]) checked element-wise,
    # as torch.jit.isinstance does in eager mode.
    if target is Any:
        return True
    if target in _BARE:
        raise RuntimeError(_BARE[target])
    origin = typing.get_origin(target)
    args = typing.get_args(target)
    if origin is None:
        return builtins.isinstance(obj, target)
    if origin is typing.Union or origin is types.UnionType:
        return any(_matches(obj, a) for a in args)
    if origin in (list, collections.abc.Sequence):
        return builtins.isinstance(obj, list) and all(_matches(o, args[0]) for o in obj)
    if origin is dict:
        if not builtins.isinstance(obj, dict):
            return False
        return all(_matches(k, args[0]) and _matches(v, args[1]) for k, v in obj.items()) if args else True
    if origin is tuple:
        if not builtins.isinstance(obj, tuple):
            return False
        # Tuple[T, ...] is not a TorchScript type: PyTorch's eager check answers False
        return Ellipsis not in args and len(args) == len(obj) and all(
            _matches(o, a) for o, a in zip(obj, args, strict=True))
    return builtins.isinstance(obj, origin)


def isinstance(obj: Any, target_type: Any) -> bool:  # noqa: A001  (PyTorch's name)
    """``isinstance`` that understands container types (``List[int]``, ``Dict[str, Tensor]``,
    ``Optional[T]``, ``Tuple[...]``), checking every element as ``torch.jit.isinstance`` does."""
    return _matches(obj, target_type)


def fork(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run ``func(*args, **kwargs)`` now (as PyTorch does outside TorchScript) and return a
    completed ``ember.futures.Future`` holding its result."""
    from ember.futures import Future

    fut: Any = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future: Any) -> Any:
    """The value of a :func:`fork` future."""
    return future.wait()


_fork = fork
_wait = wait


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    """Not available: ember has no TorchScript program to serialize (raises NotImplementedError)."""
    raise _absent("save")


def load(f: Any, map_location: Any = None, _extra_files: Any = None, _restore_shapes: bool = False,
         **kwargs: Any) -> Any:
    """Not available: ember cannot run a TorchScript archive (raises NotImplementedError)."""
    raise _absent("load")


def freeze(mod: Any, preserved_attrs: Any = None, optimize_numerics: bool = True) -> Any:
    """Not available: freezing needs a TorchScript module (raises NotImplementedError)."""
    raise _absent("freeze")


def optimize_for_inference(mod: Any, other_methods: Any = None) -> Any:
    """Not available: needs a TorchScript module (raises NotImplementedError)."""
    raise _absent("optimize_for_inference")


def export_opnames(m: Any) -> list[str]:
    """Not available: needs a TorchScript module (raises NotImplementedError)."""
    raise _absent("export_opnames")


_fusion = {"onednn": False}


def enable_onednn_fusion(enabled: bool) -> None:
    """Record the oneDNN-fusion flag (ember fuses nothing through it; kept so scripts that set it run)."""
    _fusion["onednn"] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    """The flag :func:`enable_onednn_fusion` set."""
    return _fusion["onednn"]


def set_fusion_strategy(strategy: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Accept a fusion strategy and return the previous one (no fuser runs in ember)."""
    previous = list(_fusion.get("strategy", [("STATIC", 2), ("DYNAMIC", 10)]))  # type: ignore[call-overload]
    _fusion["strategy"] = list(strategy)  # type: ignore[assignment]
    return previous


class strict_fusion:  # noqa: N801  (PyTorch's name)
    """Context manager asserting everything inside fuses: nothing is compiled in ember, so it
    checks nothing (as in PyTorch's eager mode)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


@contextlib.contextmanager
def optimized_execution(should_optimize: bool) -> Iterator[None]:
    """Context manager for the profiling executor: no effect in ember."""
    yield


@contextlib.contextmanager
def fuser(name: str) -> Iterator[None]:
    """Context manager choosing the TorchScript fuser: no effect in ember."""
    yield


class ScriptFunction:
    """TorchScript's compiled-function type; no ember object is one (``script`` returns the
    function itself), so ``isinstance(f, ScriptFunction)`` is False."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _absent("ScriptFunction")


class CompilationUnit:
    """TorchScript's compilation unit: not available (raises NotImplementedError)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _absent("CompilationUnit")


def script_method(fn: _F) -> _F:
    """Mark a method of a ``ScriptModule`` subclass to compile: a pass-through in eager code."""
    return fn


def __getattr__(name: str) -> Any:
    # ScriptModule / RecursiveScriptModule / TracedModule derive from nn.Module, which lives in ember-nn.
    if name in ("ScriptModule", "RecursiveScriptModule", "TracedModule", "TopLevelTracedModule"):
        from ember.jit._module import script_module_types

        value = script_module_types()[name]
        globals()[name] = value
        return value
    if name == "Future":
        from ember.futures import Future

        return Future
    raise AttributeError(f"module 'ember.jit' has no attribute '{name}'")
