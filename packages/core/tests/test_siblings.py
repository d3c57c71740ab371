"""Sibling distributions: lazy attributes, and a clear error naming the missing one."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import ember
import pytest


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True)


def test_missing_nn_names_its_distribution() -> None:
    # Hide ember-nn's install location, as if only ember-core were installed.
    r = run(
        """
        import sys
        sys.path[:] = [p for p in sys.path if not p.rstrip('/').endswith('nn/src')]
        import ember
        for stmt in ("import ember.nn", "ember.nn", "from ember import optim", "ember.utils.checkpoint"):
            try:
                exec(stmt)
            except ModuleNotFoundError as e:
                print(type(e).__name__, e.name, "|", e)
        """
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 4
    for line in lines:
        assert "provided by the ember-nn distribution: pip install ember-nn" in line
        assert line.startswith("ModuleNotFoundError ember.")


def test_siblings_load_lazily() -> None:
    r = run("import sys, ember; print('ember.nn' in sys.modules, 'numpy' in sys.modules)")
    assert r.stdout.split() == ["False", "False"], r.stdout + r.stderr


def test_installed_sibling_resolves_as_attribute() -> None:
    pytest.importorskip("ember.nn")
    assert ember.nn.__name__ == "ember.nn"
    assert ember.utils.data.__name__ == "ember.utils.data"
    # torch.utils.checkpoint.checkpoint(...) without importing the submodule first
    assert callable(ember.utils.checkpoint.checkpoint)


def test_abi_check_message() -> None:
    from ember import _lib

    assert _lib._EXPECTED_ABI == ember._lib._C._ABI_VERSION
