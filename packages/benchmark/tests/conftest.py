"""Make the shared helpers importable as ``ember_benchmark_testlib``.

The repo runs pytest with --import-mode=importlib, so tests/ is not on sys.path;
conftest.py is loaded before the test modules and registers the helper once.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if "ember_benchmark_testlib" not in sys.modules:
    _spec = importlib.util.spec_from_file_location(
        "ember_benchmark_testlib", Path(__file__).with_name("ember_benchmark_testlib.py")
    )
    assert _spec is not None and _spec.loader is not None
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules["ember_benchmark_testlib"] = _mod
    _spec.loader.exec_module(_mod)
