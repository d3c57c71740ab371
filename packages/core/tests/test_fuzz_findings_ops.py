"""Core-op fuzz findings of issue 16, each as the smallest call that showed it: ember must
raise PyTorch's exception type (in PyTorch's check order) or give PyTorch's dtype, shape and
values. Where PyTorch's own answer is wrong (fused optimizer steps on non-contiguous tensors)
the right value is computed another way, as torch_known_wrong.py does."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402

NAN, INF = float("nan"), float("inf")
KINDS = (NotImplementedError, IndexError, TypeError, ValueError, RuntimeError)


def outcome(m: Any, f: Callable[[Any], Any]) -> tuple:
    try:
        r = f(m)
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return ("raise", next(k.__name__ for k in KINDS + (Exception,) if isinstance(e, k)), str(e))
    rs = r if isinstance(r, (tuple, list)) else (r,)
    return ("ok", [(str(t.dtype).split(".")[-1], tuple(t.shape), t.tolist()) for t in rs])


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):  # LAPACK may round the last bit otherwise
        return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-6 * abs(a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def check(f: Callable[[Any], Any]) -> None:
    t, e = outcome(torch, f), outcome(ember, f)
    assert t[:2] == e[:2] if t[0] == "raise" else same(t, e), f"torch {t} vs ember {e}"


def call(*cases: Callable[[Any], Any]) -> list:
    return list(cases)


# ---- where: a Python number is read with the checked conversion to the result dtype ----------

@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64", "float16", "float32", "bool"])
@pytest.mark.parametrize("v", [2147483647, 300, -1, -300, 2**40, 2**63, 1e10, 1e300, True])
def test_where_number_checked(dtype: str, v: Any) -> None:
    check(lambda m: m.where(m.tensor([True, False]), m.ones(2, dtype=getattr(m, dtype)), v))
    check(lambda m: m.where(m.tensor([True, False]), v, m.ones(2, dtype=getattr(m, dtype))))
