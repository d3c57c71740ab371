"""``ember.ops``: operators registered from C++ with ``TORCH_LIBRARY`` appear here as
``ember.ops.<namespace>.<op>`` (``torch.ops`` in PyTorch). ``load_library(path)`` loads a shared
library whose static registrations run as it loads."""

from __future__ import annotations

import ctypes
import types
from typing import Any

__all__ = ["load_library", "loaded_libraries"]

loaded_libraries: set[str] = set()


class _OpNamespace(types.ModuleType):
    """One ``TORCH_LIBRARY`` namespace; its ops are attributes."""

    def __getattr__(self, op: str) -> Any:
        ns = self.__name__.rsplit(".", 1)[-1]
        raise AttributeError(f"'_OpNamespace' '{ns}' object has no attribute '{op}'")


_namespaces: dict[str, _OpNamespace] = {}


def _namespace(ns: str) -> _OpNamespace:
    if ns not in _namespaces:
        _namespaces[ns] = _OpNamespace(f"ember.ops.{ns}")
        globals()[ns] = _namespaces[ns]
    return _namespaces[ns]


def _register(ns: str, name: str, fn: Any) -> None:
    """Called by the C++ side (ember/ext/library.h) for each registered op."""
    setattr(_namespace(ns), name, fn)


def load_library(path: str) -> None:
    """Load a shared library (its ``TORCH_LIBRARY`` blocks register their ops as it loads)."""
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    loaded_libraries.add(path)


def __getattr__(ns: str) -> _OpNamespace:
    if ns.startswith("__"):
        raise AttributeError(ns)
    return _namespace(ns)
