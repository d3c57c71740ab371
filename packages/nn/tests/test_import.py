"""The ember-nn packages import, and its modules live in the shared `ember` namespace."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

MODULES = (
    "ember.nn",
    "ember.nn.functional",
    "ember.nn.init",
    "ember.nn.utils",
    "ember.optim",
    "ember.optim.lr_scheduler",
)


@pytest.mark.parametrize("name", MODULES)
def test_import_has_docstring(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip()
    assert isinstance(module.__all__, list)


# Reachable as attributes after a bare `import ember`, as `torch.nn` is after `import torch`.
ATTRIBUTES = (
    "nn",
    "optim",
)


@pytest.mark.parametrize("attr", ATTRIBUTES)
def test_attribute_after_bare_import(attr: str) -> None:
    # A fresh interpreter: in this one, earlier imports have already set the attributes.
    code = (
        f"import ember, importlib; assert ember.{attr} is importlib.import_module('ember.{attr}')"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
