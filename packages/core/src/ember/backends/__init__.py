"""``ember.backends``: what the CPU build has, and PyTorch's backend flags as settable attributes.

Submodules load on first attribute access (``ember.backends.cudnn.benchmark = True`` works
without an import), so ``import ember.backends`` costs almost nothing.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

_SUBMODULES = ("cpu", "cuda", "cudnn", "mps", "openmp", "opt_einsum", "mha", "quantized")
# PyTorch backends ember's CPU build does not contain: each is a module whose is_available() is False.
_NOT_BUILT = ("mkl", "mkldnn", "nnpack", "kleidiai", "cusparselt", "miopen")


def _not_built(name: str) -> types.ModuleType:
    mod = types.ModuleType(f"ember.backends.{name}", f"``ember.backends.{name}``: not part of ember's CPU build.")
    mod.is_available = lambda: False  # type: ignore[attr-defined]
    sys.modules[mod.__name__] = mod
    return mod


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"ember.backends.{name}")
    if name in _NOT_BUILT:
        mod = sys.modules.get(f"ember.backends.{name}") or _not_built(name)
        globals()[name] = mod
        return mod
    raise AttributeError(f"module 'ember.backends' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted([*globals(), *_SUBMODULES, *_NOT_BUILT])
