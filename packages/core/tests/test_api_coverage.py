"""What ember lacks of PyTorch's public API, kept honest.

Walks the public names of torch, torch.nn.functional, torch.linalg, torch.fft, torch.special and
torch.Tensor (dunder methods of Tensor included; other names starting with "_" are internals and
not walked). Every name ember lacks must be either in ``deliberately_absent`` (commented: why ember
does not provide it) or in ``still_missing`` (work to do) of api_coverage.yaml, and
``still_missing`` must equal the actual gap: adding a name makes the test fail until it is removed
from the list, so the list only shrinks, and never grows silently.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import yaml

torch = pytest.importorskip("torch")

DATA = Path(__file__).with_name("api_coverage.yaml")

# namespace key in the yaml -> (torch object, ember object path)
NAMESPACES = {
    "torch": ("torch", "ember"),
    "torch.nn.functional": ("torch.nn.functional", "ember.nn.functional"),
    "torch.linalg": ("torch.linalg", "ember.linalg"),
    "torch.fft": ("torch.fft", "ember.fft"),
    "torch.special": ("torch.special", "ember.special"),
    "torch.Tensor": ("torch.Tensor", "ember.Tensor"),
}


def _resolve(path: str):
    """The object at a dotted path, or None when its module is not there (then everything is missing)."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p, None)
            if obj is None:
                return None
        return obj
    return None


def _public(names: list[str], dunders: bool) -> list[str]:
    return [n for n in names if not n.startswith("_") or (dunders and n.startswith("__") and n.endswith("__"))]


def actual_gap(key: str) -> list[str]:
    torch_path, ember_path = NAMESPACES[key]
    tobj, eobj = _resolve(torch_path), _resolve(ember_path)
    names = _public(dir(tobj), dunders=key == "torch.Tensor")
    # copyreg caches __slotnames__ on a class the first time one of its instances is pickled: whether
    # torch.Tensor has it depends on which tests ran before in this process
    names = [n for n in names if n != "__slotnames__"]
    if key == "torch":  # submodules are walked by their own entries or are packages of their own
        names = [n for n in names if type(getattr(tobj, n, None)).__name__ != "module"]
    return sorted(n for n in names if eobj is None or not hasattr(eobj, n))


def load() -> dict:
    return yaml.safe_load(DATA.read_text())


@pytest.mark.parametrize("key", list(NAMESPACES))
def test_gap_is_exactly_the_listed_one(key):
    entry = load()[key]
    absent = set(entry.get("deliberately_absent") or [])
    missing = set(entry.get("still_missing") or [])
    assert not absent & missing, f"{key}: listed both as absent and missing: {sorted(absent & missing)}"
    gap = set(actual_gap(key))
    newly_provided = sorted(missing - gap)
    assert not newly_provided, f"{key}: ember now has these; remove them from still_missing: {newly_provided}"
    unlisted = sorted(gap - missing - absent)
    assert not unlisted, f"{key}: ember lacks these and no list names them: {unlisted}"
    stale_absent = sorted(absent - gap)
    assert not stale_absent, f"{key}: ember provides these after all; drop them from deliberately_absent: {stale_absent}"


if __name__ == "__main__":  # print the gap, to refresh the yaml deliberately
    for k in NAMESPACES:
        print(k, len(actual_gap(k)))
        print("  " + "\n  ".join(actual_gap(k)))
