"""Every public name of ``ember`` (and every ``Tensor`` method) is documented and introspectable.

A callable is documented when its docstring says more than a signature line (the generated ops
get their prose from docs_ops/*.yaml). Names still without documentation are listed in
docs_missing.yaml, and the test asserts the list equals the actual gap: documenting a name makes
it fail until the name is deleted there, so the list only shrinks. Every example (``>>>``) in
those docstrings runs as a doctest against ember, and ``inspect.signature`` must work on every
generated op function and Tensor method (their ``__text_signature__``).

Regenerate the lists with: python packages/core/tests/test_docstrings.py
"""

from __future__ import annotations

import doctest
import inspect
import re
import sys
import types
from pathlib import Path
from typing import Any

import ember
import pytest
import yaml
from ember._lib import _C

DATA = Path(__file__).with_name("docs_missing.yaml")
# "name(params) -> ret" lines the generated docstrings start with carry no prose.
_SIG_LINE = re.compile(r"^[\w.]+\(.*\)( -> .+)?$")


def _public_callables(obj: Any, *, methods: bool) -> dict[str, Any]:
    out = {}
    for name in dir(obj):
        if name.startswith("_"):
            continue
        try:
            v = inspect.getattr_static(obj, name) if methods else getattr(obj, name)
        except AttributeError:
            continue
        if isinstance(v, (types.ModuleType, property)) or type(v).__name__ == "getset_descriptor":
            continue
        if isinstance(v, (staticmethod, classmethod)):
            v = v.__func__
        if callable(v):
            out[name] = v
    return out


def walked() -> dict[str, dict[str, Any]]:
    # Lazily loaded names join dir(ember) on first use: load them all, so the walk does not
    # depend on what ran before.
    for name in (*ember._LAZY_NAMES, *ember._LEGACY_TYPE_NAMES):
        getattr(ember, name)
    return {"ember": _public_callables(ember, methods=False),
            "Tensor": _public_callables(ember.Tensor, methods=True)}


def documented(obj: Any) -> bool:
    doc = obj.__doc__ if isinstance(obj.__doc__, str) else None
    if not doc:
        return False
    if isinstance(obj, type) and doc == type(obj).__doc__:
        return False
    prose = [ln for ln in doc.strip().splitlines() if ln.strip() and not _SIG_LINE.match(ln.strip())]
    return bool(prose)


def actual_gap(key: str) -> list[str]:
    return sorted(n for n, v in walked()[key].items() if not documented(v))


def _listed() -> dict[str, list[str]]:
    return yaml.safe_load(DATA.read_text())


@pytest.mark.parametrize("key", ["ember", "Tensor"])
def test_still_missing_docs_is_the_actual_gap(key: str) -> None:
    listed = set(_listed()[key] or [])
    gap = set(actual_gap(key))
    undocumented = sorted(gap - listed)
    now_documented = sorted(listed - gap)
    assert not undocumented, f"{key}: public names without a docstring (document them): {undocumented}"
    assert not now_documented, f"{key}: now documented, delete from docs_missing.yaml: {now_documented}"


def _generated() -> list[tuple[str, Any]]:
    """The generated op bindings: functions of _C and methods of TensorBase (docstrings from
    codegen)."""
    from ember._op_list import OPS

    names = {o["name"] for o in OPS} | {a for o in OPS for a in o["aliases"]}
    fns = [(n, getattr(_C, n)) for n in dir(_C) if isinstance(getattr(_C, n), types.BuiltinFunctionType)
           and (n in names or n.startswith(("_linalg_", "_special_", "__nn_", "_fft_")))]
    meths = [(f"Tensor.{n}", v) for n, v in vars(_C.TensorBase).items()
             if type(v).__name__ == "method_descriptor" and (n in names or n.rstrip("_") in names)]
    return fns + meths


def test_every_generated_op_has_a_signature() -> None:
    bad = []
    for name, fn in _generated():
        try:
            inspect.signature(fn)
        except (ValueError, TypeError) as e:
            bad.append(f"{name}: {e}")
    assert not bad, bad


def test_signature_shows_schema_defaults() -> None:
    sig = inspect.signature(ember.add)
    assert list(sig.parameters) == ["input", "other", "alpha", "out"]
    assert sig.parameters["alpha"].default == 1
    assert sig.parameters["alpha"].kind is inspect.Parameter.KEYWORD_ONLY
    assert str(inspect.signature(ember.Tensor.sum)) == "(self, /, dim=None, keepdim=False, *, dtype=None)"
    assert str(inspect.signature(ember.zeros)).startswith("(*size, dtype=None")
    assert str(inspect.signature(ember.Tensor.view)) == "(self, /, *shape)"


def _binding_docs() -> dict[str, Any]:
    codegen = str(Path(__file__).resolve().parents[1] / "codegen")
    sys.path.insert(0, codegen)
    try:
        import gen_docs
    finally:
        sys.path.remove(codegen)
    return gen_docs.load_binding_docs(Path(__file__).resolve().parents[1] / "docs_ops")


def test_hand_written_bindings_take_their_docs() -> None:
    """Every entry of docs_ops/bindings.yaml reaches the binding it names (a misspelt or
    unregistered name would be silently unused), with the text signature it declares."""
    bad = []
    for key, doc in _binding_docs().items():
        method = key.startswith("Tensor.")
        obj: Any = ember
        for part in key.split("."):  # add, Tensor.uniform_, linalg.LinAlgError
            obj = getattr(obj, part)
        if " ".join(doc.summary.split()) not in " ".join((obj.__doc__ or "").split()):
            bad.append(f"{key}: its __doc__ is not the documented one")
        if doc.signature:
            want = doc.signature
            if method:  # CPython makes $self positional-only unless the signature has its own "/"
                rest = doc.signature[1:-1]
                want = f"(self, {rest})" if "/" in rest else f"(self, /{', ' + rest if rest else ''})"
            got = str(inspect.signature(obj))
            if got != want:
                bad.append(f"{key}: signature {got}, documented {want}")
    assert not bad, bad


def _examples() -> list[tuple[str, str]]:
    out = []
    import ember.linalg

    places = {**walked(), "linalg": _public_callables(ember.linalg, methods=False)}
    for key, objs in places.items():
        for name, v in sorted(objs.items()):
            doc = v.__doc__ if isinstance(v.__doc__, str) else ""
            if ">>>" in doc:
                out.append((f"{key}.{name}", doc))
    return out


@pytest.mark.parametrize("name,doc", _examples(), ids=[n for n, _ in _examples()])
def test_docstring_example_runs(name: str, doc: str) -> None:
    if ember.cuda.is_available() and "accelerator" in doc:
        pytest.skip("the example shows a machine without a GPU")
    test = doctest.DocTestParser().get_doctest(doc, {"ember": ember, "torch": ember}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    out: list[str] = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)


def coverage() -> dict[str, str]:
    """Counts for the commit message and the report: documented and introspectable names."""
    res = {}
    for key, objs in walked().items():
        doc = sum(documented(v) for v in objs.values())
        sig = 0
        for v in objs.values():
            try:
                inspect.signature(v)
                sig += 1
            except (ValueError, TypeError):
                pass
        res[key] = f"{doc}/{len(objs)} documented, {sig}/{len(objs)} with a signature"
    return res


if __name__ == "__main__":
    if sys.argv[1:] == ["--coverage"]:
        print(coverage())
        sys.exit()
    print("# Public callables of ember and Tensor methods still without a docstring, walked by")
    print("# test_docstrings.py. The test asserts each list equals the actual gap, so it only")
    print("# shrinks: document a name (docs_ops/*.yaml for ops, a docstring in Python), then delete")
    print("# it here. Regenerate: python packages/core/tests/test_docstrings.py > .../docs_missing.yaml")
    for key in ("ember", "Tensor"):
        print(f"{key}:")
        for n in actual_gap(key):
            print(f"  - {n}")
