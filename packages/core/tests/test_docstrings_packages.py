"""Every public name of every package is documented: the modules of the API reference
(docs/_ext/ember_api.py PAGES, so the site and this test walk the same names) beyond ``ember``
itself and ``Tensor`` (test_docstrings.py): each function and class, and each public method a
class defines, needs a docstring with prose. The names still without one are listed per module
in docs_missing_packages.yaml, which only shrinks (as docs_missing.yaml); the examples
(``>>>``) of every docstring walked here run as doctests against ember.

Regenerate the list with: python packages/core/tests/test_docstrings_packages.py
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import inspect
import sys
import warnings
from pathlib import Path
from typing import Any

import ember
import pytest
import yaml

HERE = Path(__file__).parent
DATA = HERE / "docs_missing_packages.yaml"
sys.path.insert(0, str(HERE))
from test_docstrings import documented  # noqa: E402 (the same rule as for ember's own names)


def _api() -> Any:
    path = HERE.parents[2] / "docs" / "_ext" / "ember_api.py"
    spec = importlib.util.spec_from_file_location("ember_api", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


API = _api()
MODULES = [m for _, _, _, mods in API.PAGES for m in mods if m not in ("ember", "ember.Tensor")]


def _own_methods(cls: type) -> dict[str, Any]:
    """The public functions a class of ember defines itself (inherited ones are their base's),
    less the overrides of a documented base method: they show its docstring (help(), Sphinx)."""
    out = {}
    for name, v in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(v, (staticmethod, classmethod)):
            v = v.__func__
        if inspect.isfunction(v) and not (not documented(v) and _base_documents(cls, name)):
            out[name] = v
    return out


def _base_documents(cls: type, name: str) -> bool:
    """A base class documents ``name`` (the docstring inspect.getdoc and Sphinx fall back to)."""
    for base in cls.__mro__[1:]:
        v = vars(base).get(name)
        if v is not None and documented(v.__func__ if isinstance(v, (staticmethod, classmethod)) else v):
            return True
    return False


def walked(module: str) -> dict[str, Any]:
    """name (or Class.method) -> object, for one module of the API reference."""
    mod = importlib.import_module(module)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # deprecated aliases warn when fetched
        for name in API.names_of(module):
            v = getattr(mod, name)
            out[name] = v
            if isinstance(v, type) and v.__module__.startswith("ember"):
                out.update({f"{name}.{m}": f for m, f in _own_methods(v).items()})
    return out


def actual_gap(module: str) -> list[str]:
    return sorted(n for n, v in walked(module).items() if not documented(v))


def _listed(module: str) -> set[str]:
    return set((yaml.safe_load(DATA.read_text()) or {}).get(module) or [])


def _importable(module: str) -> None:
    top = ".".join(module.split(".")[:3] if module.startswith("ember.utils.") else module.split(".")[:2])
    pytest.importorskip(top)


@pytest.mark.parametrize("module", MODULES)
def test_still_missing_docs_is_the_actual_gap(module: str) -> None:
    _importable(module)
    listed, gap = _listed(module), set(actual_gap(module))
    undocumented, now_documented = sorted(gap - listed), sorted(listed - gap)
    assert not undocumented, f"{module}: public names without a docstring (document them): {undocumented}"
    assert not now_documented, f"{module}: now documented, delete from {DATA.name}: {now_documented}"


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module: str) -> None:
    _importable(module)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    out: list[str] = []
    for name, v in sorted(walked(module).items()):
        doc = v.__doc__ if isinstance(v.__doc__, str) else ""
        if ">>>" in doc:
            glob = {"ember": ember, "torch": ember, **vars(importlib.import_module(module))}
            if module.startswith(("ember.nn", "ember.optim")):  # the usual import names
                glob.update(nn=importlib.import_module("ember.nn"), F=importlib.import_module("ember.nn.functional"))
            runner.run(doctest.DocTestParser().get_doctest(doc, glob, f"{module}.{name}", None, 0), out=out.append)
    assert runner.failures == 0, "".join(out)


if __name__ == "__main__":
    print("# Public names (functions, classes, Class.method) of the packages' documented modules still")
    print("# without a docstring, walked by test_docstrings_packages.py. The test asserts each list equals")
    print("# the actual gap, so it only shrinks: write the docstring, then delete the name here.")
    print("# Regenerate: python packages/core/tests/test_docstrings_packages.py > .../docs_missing_packages.yaml")
    for module in MODULES:
        gap = actual_gap(module)
        print(f"{module}:" + ("" if gap else " []"))
        for n in gap:
            print(f"  - {n}")
