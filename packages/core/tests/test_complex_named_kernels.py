"""Complex operands of the hand-written pointwise ops (ops/core/pointwise_handwritten.cpp), which
reach the complex table by their ops.yaml kernel name: pow, isclose and addcdiv compute as
PyTorch 2.13 does; the others raise its errors, named after aten's kernels."""

from __future__ import annotations

import math

import ember
import pytest

torch = pytest.importorskip("torch")

A = [[1 + 2j, -3.5 + 0.25j, 0j], [2j, -1, 4.5 - 1e-3j]]
B = [[0.5 - 1j, 2 + 0j, 1j], [1 + 1j, -0.25j, 3 - 2j]]


def pair(values: list, dtype: str) -> tuple:
    return ember.tensor(values, dtype=getattr(ember, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


def same(e: ember.Tensor, t: torch.Tensor, exact: bool = False) -> None:
    assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
    got = torch.tensor(e.tolist(), dtype=t.dtype).reshape(t.shape)
    if exact:
        assert torch.equal(got, t), (got, t)
    else:
        torch.testing.assert_close(got, t, equal_nan=True, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_pow(dtype: str) -> None:
    (ea, ta), (eb, tb) = pair(A, dtype), pair(B, dtype)
    same(ember.pow(ea, eb), torch.pow(ta, tb))
    same(ea.clone().pow_(eb), ta.clone().pow_(tb))
    same(ember.pow(ea, eb[0]), torch.pow(ta, tb[0]))  # broadcast


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("kw", [{}, {"rtol": 0.0, "atol": 0.0}, {"rtol": 0.5}, {"atol": 2.0}, {"equal_nan": True}])
def test_isclose(dtype: str, kw: dict) -> None:
    nan = complex(math.nan, 0)
    a = [[1 + 2j, 1 + 2.1j, nan, complex(0, math.nan)], [complex(math.inf, 0), 3j, -1, 1e-9j]]
    b = [[1 + 2j, 1 + 2j, nan, 1j], [complex(math.inf, 0), 3.5j, -1.2, 0j]]
    (ea, ta), (eb, tb) = pair(a, dtype), pair(b, dtype)
    same(ember.isclose(ea, eb, **kw), torch.isclose(ta, tb, **kw), exact=True)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("value", [1, -0.5, 2 - 1j])
def test_addcdiv(dtype: str, value) -> None:
    (ea, ta), (eb, tb), (ec, tc) = pair(A, dtype), pair(B, dtype), pair(B[::-1], dtype)
    same(ember.addcdiv(ea, eb, ec, value=value), torch.addcdiv(ta, tb, tc, value=value))
    same(ea.clone().addcdiv_(eb, ec, value=value), ta.clone().addcdiv_(tb, tc, value=value))


@pytest.mark.parametrize("call", [
    lambda m, x: m.round(x),
    lambda m, x: m.round(x, decimals=1),
    lambda m, x: m.nn.functional.gelu(x),
    lambda m, x: m.nn.functional.gelu(x, approximate="tanh"),
    lambda m, x: m.clamp(x, 0, 1),
    lambda m, x: m.clamp(x, min=x),
])
def test_refused_with_torch_message(call) -> None:
    (ex, tx) = pair(A, "complex64")
    with pytest.raises(Exception) as te:
        call(torch, tx)
    with pytest.raises(Exception) as ee:
        call(ember, ex)
    assert type(ee.value).__name__ == type(te.value).__name__
    assert str(ee.value).splitlines()[0] == str(te.value).splitlines()[0]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite"])
def test_classification(dtype: str, op: str) -> None:
    inf, nan = math.inf, math.nan
    values = [complex(nan, 1), complex(1, nan), complex(inf, 0), complex(0, -inf), complex(inf, nan), 1 + 1j, 0j]
    e, t = pair(values, dtype)
    same(getattr(ember, op)(e), getattr(torch, op)(t), exact=True)
