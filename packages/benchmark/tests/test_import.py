"""The ember-benchmark skeleton imports, and its modules live in the shared `ember` namespace."""

from __future__ import annotations

import importlib

import pytest

MODULES = (
    "ember.utils.benchmark",
    "ember.utils.benchmark.utils",
    "ember.utils.benchmark.utils.common",
    "ember.utils.benchmark.utils.compare",
    "ember.utils.benchmark.utils.cpp_jit",
    "ember.utils.benchmark.utils.fuzzer",
    "ember.utils.benchmark.utils.timer",
    "ember.utils.benchmark.utils.valgrind_wrapper",
    "ember.utils.benchmark.utils.valgrind_wrapper.timer_interface",
    "ember.utils.benchmark.utils.valgrind_wrapper._collect",
    "ember.utils.benchmark._cli",
)


@pytest.mark.parametrize("name", MODULES)
def test_import_has_docstring(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip()
    if hasattr(module, "__all__"):
        assert isinstance(module.__all__, list)
        assert all(hasattr(module, name) for name in module.__all__)


def test_public_names_match_torch() -> None:
    import ember.utils.benchmark as ours

    theirs = pytest.importorskip("torch.utils.benchmark")
    expected = {n for n in dir(theirs) if not n.startswith("_") and n[0].isupper() or n in (
        "select_unit", "unit_to_english", "trim_sigfig", "ordered_unique", "set_torch_threads", "timer")}
    expected -= {"Number", "FuzzedSparseTensor"}  # a typing alias; sparse fuzzing is not implemented yet
    assert expected <= set(ours.__all__)


def test_sibling_lookup() -> None:
    import ember

    assert importlib.import_module("ember.utils.benchmark") is ember.utils.benchmark
