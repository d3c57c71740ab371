"""``ember.compile``: every argument of ``torch.compile`` checked as PyTorch checks it; the result
runs eagerly (ember has no graph compiler), so outputs and gradients are the original's.

What comes back has PyTorch's shape: a module is wrapped in ``OptimizedModule`` (state_dict
keys gain ``_orig_mod.``, attributes forward to the original), a function in a wrapper function.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# The backend names PyTorch 2.13 registers (torch._dynamo.list_backends(exclude_tags=())); all run eagerly here.
BACKENDS = ("aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
            "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts", "cudagraphs",
            "eager", "eager_debug", "eager_noexcept", "inductor", "invoke_subgraph", "openxla", "openxla_eval",
            "pre_dispatch_eager", "ts", "tvm")
_PUBLIC_BACKENDS = ("cudagraphs", "inductor", "openxla", "tvm")  # those without debug/experimental tags


class InvalidBackend(RuntimeError):
    """An unknown backend name (``torch._dynamo.exc.InvalidBackend``)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")


def list_backends(exclude_tags: tuple = ("debug", "experimental")) -> list[str]:
    return sorted(_PUBLIC_BACKENDS if exclude_tags else BACKENDS)


def _check(model: Any, backend: Any, mode: Any, options: Any) -> None:
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in BACKENDS:
        raise InvalidBackend(backend)


def compile(model: Callable | None = None, *, fullgraph: bool = False, dynamic: bool | None = None,
            backend: str | Callable | None = "inductor", mode: str | None = None,
            options: dict[str, Any] | None = None, name: str | None = None, disable: bool = False,
            recompile_limit: int | None = None, isolate_recompiles: bool = False, shapes_spec: Any = None) -> Any:
    """As ``torch.compile``; the compiled callable runs ember's eager ops (the same results exactly)."""
    if model is None:  # @ember.compile(...) with arguments: a decorator
        def fn(model: Callable) -> Any:
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, name=name, disable=disable, recompile_limit=recompile_limit,
                           isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)

        return fn
    _check(model, backend, mode, options)
    if disable:
        return model
    module_cls = _module_class()
    if module_cls is not None and isinstance(model, module_cls):
        from ember.compiler._optimized_module import OptimizedModule

        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        return model(*args, **kwargs)

    compiled._torchdynamo_orig_callable = model  # type: ignore[attr-defined]
    return compiled


def _module_class() -> Any:
    import sys

    nn = sys.modules.get("ember.nn")  # no module can exist before ember.nn is imported
    return nn.Module if nn is not None else None
