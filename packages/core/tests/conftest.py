"""Make the shared test helpers importable as `parity_inputs`.

The repo runs pytest with --import-mode=importlib, so tests/ is not on sys.path;
conftest.py is loaded before the test modules and registers the helper once.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if "parity_inputs" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("parity_inputs", Path(__file__).with_name("parity_inputs.py"))
    assert _spec is not None and _spec.loader is not None
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules["parity_inputs"] = _mod
    try:
        _spec.loader.exec_module(_mod)
    except ImportError:  # torch missing: the tests that need it skip themselves
        del sys.modules["parity_inputs"]
