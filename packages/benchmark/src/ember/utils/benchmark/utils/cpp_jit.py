"""Compile C++ timer statements into a Python module with ``ember.utils.cpp_extension``.

Needs the optional ``ember-cpp-extension`` distribution
(``pip install ember-benchmark[cpp]``) and a C++ compiler.  The generated
module exposes ``timeit(n) -> seconds`` for Timer and
``callgrind(number, warmup, repeats, region)`` for ``collect_callgrind``.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
from types import ModuleType
from typing import Any

__all__ = ["require_cpp_extension", "compile_timer_module"]

_DIST = "ember-cpp-extension"
_LOCK = threading.Lock()
_BUILD_ROOT: str | None = None
_MODULES: dict[str, ModuleType] = {}

_TEMPLATE = """\
#include <chrono>
#include <cstdint>
#include <torch/extension.h>

// Global setup (includes, helpers).
// EMBER_GLOBAL_SETUP

static double ember_timer_timeit(int64_t ember_number) {
  pybind11::gil_scoped_release ember_no_gil;
  // EMBER_SETUP
  {
    // Warm-up: one execution (also surfaces errors before the clock starts).
    // EMBER_STMT
  }
  auto ember_start = std::chrono::steady_clock::now();
  for (int64_t ember_i = 0; ember_i < ember_number; ++ember_i) {
    // EMBER_STMT
  }
  auto ember_stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(ember_stop - ember_start).count();
}

static void ember_timer_callgrind(int64_t ember_number, int64_t ember_warmup, int64_t ember_repeats,
                                  pybind11::function ember_region) {
  // EMBER_SETUP
  for (int64_t ember_i = 0; ember_i < ember_warmup; ++ember_i) {
    // EMBER_STMT
  }
  auto ember_loop = [&]() {
    for (int64_t ember_i = 0; ember_i < ember_number; ++ember_i) {
      // EMBER_STMT
    }
  };
  // `ember_region` runs the loop inside the call that Callgrind collects around.
  for (int64_t ember_r = 0; ember_r < ember_repeats; ++ember_r) {
    ember_region(pybind11::cpp_function(ember_loop));
  }
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("timeit", &ember_timer_timeit);
  m.def("callgrind", &ember_timer_callgrind);
}
"""


def require_cpp_extension() -> Any:
    """``ember.utils.cpp_extension`` if it can JIT-build extensions, else an ImportError naming the distribution."""
    try:
        from ember.utils import cpp_extension
    except ImportError as e:
        raise ModuleNotFoundError(
            f"Timer(language='c++') compiles statements with ember.utils.cpp_extension, which is provided "
            f"by the {_DIST} distribution: pip install ember-benchmark[cpp] (or pip install {_DIST})",
            name="ember.utils.cpp_extension",
        ) from e
    missing = [name for name in ("load", "include_paths") if not callable(getattr(cpp_extension, name, None))]
    if missing:
        raise ImportError(
            f"Timer(language='c++') needs ember.utils.cpp_extension.{' and .'.join(missing)}, which the "
            f"installed {_DIST} does not provide; install a release with JIT builds: pip install -U {_DIST}",
            name="ember.utils.cpp_extension",
        )
    if not any(os.path.isfile(os.path.join(p, "torch", "extension.h")) for p in cpp_extension.include_paths()):
        raise ImportError(
            f"Timer(language='c++') needs the C++ headers (torch/extension.h) that {_DIST} locates through "
            f"ember.utils.cpp_extension.include_paths(); none were found there: {cpp_extension.include_paths()}",
            name="ember.utils.cpp_extension",
        )
    return cpp_extension


def _indent(code: str, spaces: int) -> str:
    pad = " " * spaces
    return "\n".join(pad + line if line.strip() else line for line in code.splitlines()).lstrip()


def _source(stmt: str, setup: str, global_setup: str) -> str:
    src = _TEMPLATE.replace("// EMBER_GLOBAL_SETUP", global_setup.strip())
    src = src.replace("// EMBER_SETUP", _indent(setup, 2))
    # Statements sit at different depths; indentation is cosmetic in C++.
    return src.replace("// EMBER_STMT", _indent(stmt, 6))


def _build_root() -> str:
    global _BUILD_ROOT
    if _BUILD_ROOT is None:
        # One root per process, shared by all timers: identical sources reuse a build.
        _BUILD_ROOT = tempfile.mkdtemp(prefix="ember_timer_cpp_")
        atexit.register(shutil.rmtree, _BUILD_ROOT, True)
    return _BUILD_ROOT


def compile_timer_module(*, stmt: str, setup: str, global_setup: str) -> ModuleType:
    """Build (once per distinct source) and import the timer module for a C++ statement."""
    cpp_extension = require_cpp_extension()
    src = _source(stmt, setup, global_setup)
    name = "ember_timer_cpp_" + hashlib.sha1(src.encode()).hexdigest()[:16]
    with _LOCK:
        if name in _MODULES:
            return _MODULES[name]
        build_dir = os.path.join(_build_root(), name)
        os.makedirs(build_dir, exist_ok=True)
        path = os.path.join(build_dir, "timer_src.cpp")
        with open(path, "w") as f:
            f.write(src)
        module = cpp_extension.load(name=name, sources=[path], build_directory=build_dir,
                                    extra_cflags=["-O2", "-g"], is_python_module=True)
        _MODULES[name] = module
        return module
