"""``ember.compiler``: PyTorch's compiler API. ember executes eagerly: nothing is ever being
compiled, so the queries answer False and the graph-shaping decorators return their input."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ember.compiler._compile import compile, list_backends

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "is_exporting", "reset",
           "allow_in_graph", "assume_constant_result", "list_backends", "substitute_in_graph",
           "set_stance", "cudagraph_mark_step_begin", "nested_compile_region", "get_default_backend",
           "set_default_backend"]

_default_backend = ["inductor"]


def disable(fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None) -> Any:
    """``fn`` runs uncompiled (it always does in ember): a wrapper calling it, or a decorator if fn is None."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)

    @functools.wraps(fn)
    def _fn(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return _fn


def is_compiling() -> bool:
    return False


def is_dynamo_compiling() -> bool:
    return False


def is_exporting() -> bool:
    return False


def reset() -> None:
    """Clear compilation caches (there are none)."""


def allow_in_graph(fn: Callable) -> Callable:
    return fn


def assume_constant_result(fn: Callable) -> Callable:
    return fn


def substitute_in_graph(original_fn: Callable, *, can_constant_fold_through: bool = False,
                        skip_signature_check: bool = False) -> Callable[[Callable], Callable]:
    return lambda fn: fn


def nested_compile_region(fn: Callable | None = None, options: Any = None) -> Any:
    return (lambda f: f) if fn is None else fn


def set_stance(stance: str = "default", *, skip_guard_eval_unsafe: bool = False, force_backend: Any = None) -> Any:
    """Accepted (ember's only stance is eager); usable as a context manager or decorator like PyTorch's."""
    import contextlib

    return contextlib.nullcontext()


def cudagraph_mark_step_begin() -> None:
    """No CUDA graphs in ember: nothing to mark."""


def get_default_backend() -> str:
    return _default_backend[0]


def set_default_backend(backend: str) -> None:
    _default_backend[0] = backend
