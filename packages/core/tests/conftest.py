"""Make the shared test helpers importable: `sibling` (load a module of this folder by name) and
`parity_inputs`.

The repo runs pytest with --import-mode=importlib, so tests/ is not on sys.path;
conftest.py is loaded before the test modules and registers the helpers once.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if "sibling" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("sibling", Path(__file__).with_name("sibling.py"))
    assert _spec is not None and _spec.loader is not None
    sys.modules["sibling"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["sibling"])

try:
    sys.modules["sibling"].load("parity_inputs")
except ImportError:  # torch missing: the tests that need it skip themselves
    pass


import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _release_device_cache() -> object:
    """After each module, the device blocks it cached go back (on the CUDA emulator every launch
    re-protects the resident device memory, so a large module's cache slowed the rest)."""
    yield
    import ember

    if ember.cuda.is_initialized():
        ember.cuda.empty_cache()
