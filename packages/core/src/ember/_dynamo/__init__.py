"""``torch._dynamo``: private in PyTorch, but library code sets ``torch._dynamo.config`` flags
(``suppress_errors``, ``cache_size_limit``) and decorates with ``torch._dynamo.disable``. ember runs
eagerly, so these are the ``ember.compiler`` no-ops plus a config object that keeps what it is told."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember._dynamo import config
from ember.compiler import allow_in_graph, assume_constant_result, disable, is_compiling, list_backends, reset
from ember.compiler import substitute_in_graph as substitute_in_graph

__all__ = ["allow_in_graph", "assume_constant_result", "config", "disable", "disallow_in_graph", "explain",
           "forbid_in_graph", "graph_break", "is_compiling", "is_dynamo_supported", "list_backends", "mark_dynamic",
           "mark_static", "maybe_mark_dynamic", "optimize", "reset", "reset_code_caches", "run"]


def is_dynamo_supported() -> bool:
    return True


def mark_dynamic(t: Any, index: Any, *, hint_override: int | None = None, min: int | None = None,
                 max: int | None = None, specialize_on: Any = None) -> None:
    """Shape hints for the tracer; nothing is traced in ember."""


def mark_static(t: Any, index: Any = None) -> None:
    pass


def maybe_mark_dynamic(t: Any, index: Any) -> None:
    pass


def graph_break(msg: str = "") -> None:
    pass


def disallow_in_graph(fn: Callable) -> Callable:
    return fn


def forbid_in_graph(fn: Callable) -> Callable:
    return fn


def reset_code_caches() -> None:
    pass


def optimize(backend: Any = "inductor", *, nopython: bool = False, guard_export_fn: Any = None,
             guard_fail_fn: Any = None, disable: bool = False, dynamic: Any = None, **kwargs: Any) -> Any:
    """The old spelling of ``torch.compile``'s decorator: here it returns the function unchanged."""
    return lambda fn: fn


def run(fn: Callable | None = None) -> Any:
    return (lambda f: f) if fn is None else fn


def explain(f: Callable, *extra_args: Any, **extra_kwargs: Any) -> Any:
    raise NotImplementedError("torch._dynamo.explain: ember does not trace graphs")
