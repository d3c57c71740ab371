"""ember's sibling distributions: lazy attribute access and clear errors when absent."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

# Module → the distribution that provides it.
PROVIDERS = {
    "ember.nn": "ember-nn",
    "ember.optim": "ember-nn",
    "ember.distributed": "ember-distributed",
    "ember.profiler": "ember-profiler",
    "ember.utils.data": "ember-data",
    "ember.utils.bottleneck": "ember-profiler",
    "ember.utils.tensorboard": "ember-profiler",
    "ember.utils.benchmark": "ember-benchmark",
    "ember.utils.cpp_extension": "ember-cpp-extension",
    "ember.utils.checkpoint": "ember-nn",
}


def _missing(name: str) -> ModuleNotFoundError:
    dist = PROVIDERS[name]
    return ModuleNotFoundError(
        f"{name} is provided by the {dist} distribution: pip install {dist}", name=name
    )


class _MissingSiblingFinder:
    """Last on sys.meta_path: only asked once every real finder has failed.

    (A plain class: the import protocol only needs find_spec, and importlib.abc
    costs ~15 ms of import time.)"""

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        if fullname in PROVIDERS:
            raise _missing(fullname)
        return None


def install_finder() -> None:
    if not any(isinstance(f, _MissingSiblingFinder) for f in sys.meta_path):
        sys.meta_path.append(_MissingSiblingFinder())


def import_sibling(name: str) -> ModuleType:
    """Import ``name`` (e.g. ``ember.nn``), naming the distribution if it is missing."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name == name:
            raise _missing(name) from None
        raise
