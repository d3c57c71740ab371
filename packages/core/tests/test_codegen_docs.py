"""codegen/gen_docs.py: docs_ops/*.yaml loads (unknown keys and unknown op names are errors),
and every generated text signature is one CPython's inspect can parse."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
CORE = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def codegen():  # noqa: ANN201
    sys.path.insert(0, str(CORE / "codegen"))
    try:
        import gen
        import gen_docs
        from schema import load_ops

        doc = yaml.safe_load((CORE / "ops.yaml").read_text())
        for extra in sorted((CORE / "ops").glob("*.yaml")):
            more = yaml.safe_load(extra.read_text()) or {}
            doc["ops"].extend(more.get("ops") or [])
        yield gen, gen_docs, load_ops(doc)
    finally:
        sys.path.remove(str(CORE / "codegen"))


def test_docs_load(codegen) -> None:  # noqa: ANN001
    _, gen_docs, ops = codegen
    docs = gen_docs.load_docs(CORE / "docs_ops", ops)
    assert "add" in docs and docs["add"].summary


@pytest.mark.parametrize("entry,message", [
    ({"add": {"summary": "x", "exmaple": ">>> 1"}}, "unknown key(s) ['exmaple']"),
    ({"no_such_op": {"summary": "x"}}, "no op of that name"),
    ({"add": {"args": {}}}, "`summary` is required"),
])
def test_bad_docs_entry_is_an_error(codegen, tmp_path: Path, entry: dict, message: str) -> None:  # noqa: ANN001
    _, gen_docs, ops = codegen
    (tmp_path / "x.yaml").write_text(yaml.safe_dump(entry))
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        gen_docs.load_docs(tmp_path, ops)


def test_every_text_signature_parses(codegen) -> None:  # noqa: ANN001
    gen, gen_docs, ops = codegen
    docs = gen_docs.load_docs(CORE / "docs_ops", ops)
    n = 0
    for kind in ("function", "method", "inplace"):
        for name, gops in gen.group(ops, kind).items():
            sig = gen_docs.text_signature(name, gops, kind, docs.get(gen_docs.py_path(gops[0])))
            inner = sig[len(name) + 1:-1].replace("$self", "self")
            fn = ast.parse(f"def f({inner}): pass").body[0]
            for d in fn.args.defaults + [d for d in fn.args.kw_defaults if d is not None]:
                ast.literal_eval(d)  # inspect accepts literal defaults only
            n += 1
    assert n > 600


def test_overloads_merge_into_one_signature(codegen) -> None:  # noqa: ANN001
    gen, gen_docs, ops = codegen
    sums = gen.group(ops, "function")["sum"]
    assert gen_docs.text_signature("sum", sums, "function", None) == \
        "sum(input, dim=None, keepdim=False, *, dtype=None, out=None)"
    maxes = gen.group(ops, "function")["max"]  # max(input, dim) vs max(input, other): no merge
    assert gen_docs.text_signature("max", maxes, "function", None) == "max(*args, **kwargs)"
