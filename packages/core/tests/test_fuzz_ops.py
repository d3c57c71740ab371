"""Fuzz: every ops.yaml op (as test_parity.py walks them) on mutated calls, against PyTorch.

See fuzz_props.py for what is drawn and checked.  One property per op; ember runs in a worker
subprocess, so a crash or hang fails that op's property with the call, not the run.  CI runs are
deterministic (derandomized); `nox -s fuzz -- --minutes N` runs the same properties longer.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("hypothesis")

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

if "fuzz_props" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("fuzz_props", Path(__file__).with_name("fuzz_props.py"))
    sys.modules["fuzz_props"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["fuzz_props"])
FP = sys.modules["fuzz_props"]
PENDING = FP.S.load("fuzz_pending").OPS
RUN_ALL = bool(os.environ.get("EMBER_FUZZ_ALL"))

EXAMPLES = 25  # per op: ~370 ops x 25 calls, each run by both libraries in the worker


@pytest.fixture(autouse=True)
def _fresh_worker() -> None:
    """Each property starts in a fresh child of the worker's fork server."""
    FP.worker().reset()


def test_pending_names_exist() -> None:
    assert not set(PENDING) - set(FP.SEEDS), "fuzz_pending.OPS names unknown ops"


@pytest.mark.parametrize("key", sorted(k for k in FP.SEEDS if RUN_ALL or k not in PENDING))
@FP.ci_settings(EXAMPLES)
@given(data=st.data())
def test_fuzz_op(key: str, data: Any) -> None:
    FP.check(FP.worker(), data.draw(FP.op_calls(key), label="call"))
