"""``ember.backends.opt_einsum``: whether the opt_einsum package could plan einsum contractions."""

from __future__ import annotations

import importlib.util
from typing import Any


def is_available() -> bool:
    """True when the ``opt_einsum`` package is installed (looked up, not imported)."""
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum() -> Any:
    """The ``opt_einsum`` module, or None when it is not installed."""
    return importlib.import_module("opt_einsum") if is_available() else None


enabled: bool = is_available()
strategy: Any = "auto" if enabled else None
