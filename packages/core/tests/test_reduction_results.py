"""A reduction's result is a tensor of its own, as in PyTorch: not a view (no ``_base``), and no
memory shared with the input. (ember's reductions once returned a view of their accumulator.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")

CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "sum()": lambda lib, x: x.sum(),
    "sum(0)": lambda lib, x: x.sum(0),
    "sum(1, keepdim)": lambda lib, x: x.sum(1, keepdim=True),
    "sum(dtype=float64)": lambda lib, x: x.sum(dtype=lib.float64),
    "mean(1)": lambda lib, x: x.mean(1),
    "prod(0)": lambda lib, x: x.prod(0),
    "amax(0)": lambda lib, x: x.amax(0),
    "amin()": lambda lib, x: x.amin(),
    "max(0).values": lambda lib, x: x.max(0).values,
    "max(1).indices": lambda lib, x: x.max(1).indices,
    "min(0).values": lambda lib, x: x.min(0).values,
    "argmax(1)": lambda lib, x: x.argmax(1),
    "var(0)": lambda lib, x: x.var(0),
    "std()": lambda lib, x: x.std(),
    "var_mean(1)[1]": lambda lib, x: lib.var_mean(x, 1)[1],
    "logsumexp(1)": lambda lib, x: lib.logsumexp(x, 1),
    "norm()": lambda lib, x: x.norm(),
    "all(0)": lambda lib, x: (x > 0).all(0),
    "any()": lambda lib, x: (x > 0).any(),
    "nansum(0)": lambda lib, x: x.nansum(0),
    "int sum(1)": lambda lib, x: x.long().sum(1),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_reduction_result_is_not_a_view(name: str) -> None:
    f = CALLS[name]
    got = []
    for lib in (torch, ember):
        x = lib.arange(12, dtype=lib.float32).reshape(3, 4) - 5
        r = f(lib, x)
        got.append((r._is_view(), r._base is None, tuple(r.shape), r.is_contiguous()))
    assert got[1] == got[0]


def test_reduction_result_owns_its_memory() -> None:
    x = ember.ones(3, 4)
    r = x.sum(0)
    r.add_(1)  # writing the result touches nothing else
    assert r.tolist() == [4.0] * 4 and x.sum().item() == 12.0
    v, i = x.max(1)
    assert v.stride() == (1,) and i.stride() == (1,)


PRODUCTS: dict[str, Callable[[Any], Any]] = {
    "dot": lambda lib: lib.dot(lib.ones(4), lib.ones(4)),
    "vector @ vector": lambda lib: lib.ones(4) @ lib.ones(4),
    "matrix @ vector (mv)": lambda lib: lib.ones(3, 4) @ lib.ones(4),
    "vector @ matrix": lambda lib: lib.ones(4) @ lib.ones(4, 5),
    "batch @ matrix": lambda lib: lib.ones(2, 3, 4) @ lib.ones(4, 5),
    "batch @ vector": lambda lib: lib.ones(2, 3, 4) @ lib.ones(4),
    "batch @ batch": lambda lib: lib.ones(2, 3, 4) @ lib.ones(2, 4, 3),
    "vdot": lambda lib: lib.vdot(lib.ones(4), lib.ones(4)),
}


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_product_result_is_not_a_view(name: str) -> None:
    got = []
    for lib in (torch, ember):
        r = PRODUCTS[name](lib)
        got.append((r._is_view(), r._base is None, tuple(r.shape), r.tolist()))
    assert got[1] == got[0]
