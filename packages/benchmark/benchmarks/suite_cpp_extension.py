"""The "cpp_extension" suite: a small two-function C++ extension built with each library's
``utils.cpp_extension.load_inline`` (the same source, written against torch/extension.h).

Rows: the first build (a fresh build folder per run) and a cached load (the folder built
once), each in a fresh interpreter (so both include interpreter start and the library import:
compare the ratios), and the overhead of calling a bound function on 1-element tensors.
packages/cpp_extension/benchmarks/build_times.py gives the same figures without the
interpreter start and with the compiler's CPU time.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from types import ModuleType
from typing import Any

from harness import Bench

TITLES = {
    "cpp_extension": "C++ extensions: build, cached load, call (time; ratio = ember/torch, lower is better)",
}

SOURCE = """
at::Tensor sin_add(at::Tensor x, at::Tensor y) { return x.sin() + y.sin(); }
at::Tensor identity(at::Tensor x) { return x; }
"""

_roots: dict[str, str] = {}


def _root(lib_name: str) -> str:
    if lib_name not in _roots:
        _roots[lib_name] = tempfile.mkdtemp(prefix=f"ember-bench-ext-{lib_name}-")
        atexit.register(shutil.rmtree, _roots[lib_name], True)
    return _roots[lib_name]


def _load(lib: ModuleType) -> Any:
    import importlib

    ce = importlib.import_module(lib.__name__ + ".utils.cpp_extension")
    # One module name per library: two extension modules of one name in a process clash.
    return ce.load_inline(f"bench_ext_{lib.__name__}", SOURCE, functions=["sin_add", "identity"],
                          build_directory=_root(lib.__name__))


def call_setup(lib: ModuleType) -> dict[str, Any]:
    return {"ext": _load(lib), "x": lib.ones(1), "y": lib.ones(1)}


# `{name}` is the library (the harness formats it in). The cached row reuses one folder (its
# warm-up run builds it); the first-build row builds into a new folder and removes it.
_LOAD = """
import {name}, os, shutil, tempfile
from {name}.utils.cpp_extension import load_inline
d = %s
os.makedirs(d, exist_ok=True)
load_inline('bench_ext', %s, functions=['sin_add', 'identity'], build_directory=d)
%s
"""
_SRC = repr(SOURCE).replace("{", "{{").replace("}", "}}")  # survives the harness's str.format
_CACHED = _LOAD % ("os.path.join(tempfile.gettempdir(), 'ember-bench-ext-cached-{name}')", _SRC, "")
_FIRST = _LOAD % ("tempfile.mkdtemp()", _SRC, "shutil.rmtree(d)")

BENCHES = [
    Bench("cpp_extension", "call identity(x), 1 element", "overhead", "ext.identity(x)", call_setup, target=0.7),
    Bench("cpp_extension", "call sin_add(x, y), 1 element", "overhead", "ext.sin_add(x, y)", call_setup),
    Bench("cpp_extension", "cached load_inline (fresh process)", "import", _CACHED),
    Bench("cpp_extension", "first load_inline build (fresh folder)", "import", _FIRST),
]
