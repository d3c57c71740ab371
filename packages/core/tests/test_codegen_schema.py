"""codegen/schema.py: every ops.yaml entry loads, and a key the generator does not know is an
error naming the op and the key (a misspelt key used to be silently ignored)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
CORE = Path(__file__).resolve().parents[1]


def _schema():
    spec = importlib.util.spec_from_file_location("ember_codegen_schema", CORE / "codegen" / "schema.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the class is made
    spec.loader.exec_module(mod)
    return mod


def test_every_yaml_entry_loads() -> None:
    s = _schema()
    files = [CORE / "ops.yaml", *sorted((CORE / "ops").glob("*.yaml"))]
    assert sum(len(s.load_ops(yaml.safe_load(f.read_text()))) for f in files) > 300


def test_unknown_key_names_op_and_key() -> None:
    s = _schema()
    doc = {"ops": [{"func": "frob(Tensor self) -> Tensor", "family": "custom", "varargs": "x"}]}
    with pytest.raises(ValueError, match=r"frob\(Tensor self\).*unknown key\(s\) \['varargs'\]"):
        s.load_ops(doc)


def test_header_documents_every_key() -> None:
    """The ops.yaml header describes every field an entry may have."""
    s = _schema()
    header = "".join(line for line in (CORE / "ops.yaml").read_text().splitlines(True) if line.startswith("#"))
    missing = sorted(k for k in s.KNOWN_KEYS if f"{k}:" not in header and f"`{k}`" not in header)
    assert not missing, f"ops.yaml header does not describe {missing}"


def test_generator_parameter_parses() -> None:
    s = _schema()
    sch = s.parse_schema("rand(int[] size, *, Generator? generator=None) -> Tensor")
    gen = sch.params[1]
    assert (gen.type, gen.base, gen.optional, gen.kw_only, gen.default) == ("Generator?", "Generator", True, True,
                                                                            "None")
