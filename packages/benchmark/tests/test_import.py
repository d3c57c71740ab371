"""The ember-benchmark skeleton imports, and its modules live in the shared `ember` namespace."""

from __future__ import annotations

import importlib

import pytest

MODULES = ("ember.utils.benchmark",)


@pytest.mark.parametrize("name", MODULES)
def test_import_has_docstring(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip()
    assert isinstance(module.__all__, list)
