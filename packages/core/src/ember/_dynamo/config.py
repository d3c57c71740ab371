"""``torch._dynamo.config``: the flags libraries set before compiling. ember never compiles, so they
only have to be readable, settable (known names only, as PyTorch) and patchable."""

from __future__ import annotations

import contextlib
import functools
import sys
import types
from collections.abc import Callable
from typing import Any

# PyTorch 2.13's defaults for the names library code touches
_DEFAULTS: dict[str, Any] = {
    "suppress_errors": False, "recompile_limit": 8, "accumulated_recompile_limit": 256, "verbose": False,
    "capture_scalar_outputs": False, "capture_dynamic_output_shape_ops": False, "optimize_ddp": True,
    "automatic_dynamic_shapes": True, "assume_static_by_default": True, "guard_nn_modules": True,
    "inline_inbuilt_nn_modules": True, "force_parameter_static_shapes": True,
    "force_nn_module_property_static_shapes": True, "specialize_int": False, "specialize_float": False,
    "dynamic_shapes": True, "allow_unspec_int_on_nn_module": False, "error_on_recompile": False,
    "skip_nnmodule_hook_guards": True, "allow_rnn": False, "replay_record_enabled": False,
    "rewrite_assert_with_torch_assert": True, "disable": False, "raise_on_ctx_manager_usage": True,
    "cprofile": False, "compiled_autograd": False, "allow_ignore_mark_dynamic": False,
    "prefer_deferred_runtime_asserts_over_guards": False, "do_not_emit_runtime_asserts": False,
    "use_graph_deduplication": False, "trace_numpy": True, "numpy_default_float": "float64",
    "capture_func_transforms": True, "report_guard_failures": True, "repro_after": None, "repro_level": 2,
    "fail_on_recompile_limit_hit": False, "caching_precompile": False,
}
# old names that read and write the new ones
_ALIASES = {"cache_size_limit": "recompile_limit", "accumulated_cache_size_limit": "accumulated_recompile_limit"}


class _ConfigModule(types.ModuleType):
    """A module whose attributes are the flags: unknown names are an AttributeError both ways."""

    _values: dict[str, Any]

    def _key(self, name: str) -> str:
        key = _ALIASES.get(name, name)
        if key not in _DEFAULTS:
            raise AttributeError(f"torch._dynamo.config.{name} does not exist")
        return key

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._values[self._key(name)]

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_") and name not in _DEFAULTS:
            super().__setattr__(name, value)
            return
        self._values[self._key(name)] = value

    def get_config_copy(self) -> dict[str, Any]:
        return dict(self._values)

    def patch(self, arg1: str | dict[str, Any] | None = None, arg2: Any = None, **kwargs: Any) -> Any:
        """Set flags for a ``with`` block or a decorated function, then restore them."""
        changes = dict(kwargs)
        if isinstance(arg1, str):
            changes[arg1] = arg2
        elif isinstance(arg1, dict):
            changes.update(arg1)
        keys = {self._key(k): v for k, v in changes.items()}  # unknown names fail at patch() time
        return _Patch(self, keys)


class _Patch(contextlib.ContextDecorator):
    def __init__(self, cfg: _ConfigModule, changes: dict[str, Any]) -> None:
        self.cfg, self.changes = cfg, changes
        self.saved: list[dict[str, Any]] = []

    def __enter__(self) -> None:
        self.saved.append({k: self.cfg._values[k] for k in self.changes})
        self.cfg._values.update(self.changes)

    def __exit__(self, *exc: Any) -> None:
        self.cfg._values.update(self.saved.pop())

    def __call__(self, fn: Callable) -> Callable:  # type: ignore[override]
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return inner


def _install() -> None:
    mod = sys.modules[__name__]
    mod.__class__ = _ConfigModule
    object.__setattr__(mod, "_values", dict(_DEFAULTS))


_install()
