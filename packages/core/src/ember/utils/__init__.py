"""ember.utils: utilities; most subpackages come from sibling distributions.

``ember.utils.data`` is provided by ember-data, ``ember.utils.benchmark`` by
ember-benchmark, ``ember.utils.bottleneck`` and ``ember.utils.tensorboard`` by
ember-profiler, ``ember.utils.cpp_extension`` by ember-cpp-extension, ``ember.utils.checkpoint``
by ember-nn.
"""

from __future__ import annotations

import pkgutil

__path__ = pkgutil.extend_path(__path__, __name__)

_SUBMODULES = ("data", "benchmark", "bottleneck", "tensorboard", "cpp_extension", "checkpoint")


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    if name in ("dlpack", "deterministic", "hooks", "collect_env", "_pytree", "model_zoo"):  # core, loaded on use
        import importlib

        return importlib.import_module(f"ember.utils.{name}")
    if name in _SUBMODULES:
        from ember._siblings import import_sibling

        return import_sibling(f"ember.utils.{name}")
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")
