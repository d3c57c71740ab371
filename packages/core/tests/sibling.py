"""Modules of this tests folder by name, for the tests that share helpers: pytest runs with
--import-mode=importlib, so the folder is not on sys.path. conftest.py registers this module as
`sibling`; a test writes `from sibling import load` and `load("test_fuzz_findings_ops")`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load(name: str) -> ModuleType:
    """The module tests/<name>.py, executed once per process under its own name."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return sys.modules[name]
