"""silu's native kernel pair (ops/nn_activation.yaml) against torch's: values in every float dtype,
the first and second derivative, the node's name, and the in-place form."""

from __future__ import annotations

from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")

VALUES = [float("nan"), float("-inf"), -1e30, -100.0, -20.0, -3.0, -0.5, -0.0, 0.0, 1e-30, 0.5, 3.0, 20.0, 100.0,
          1e30, float("inf")]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_values(dtype: str) -> None:
    got = []
    for L in (ember, torch):
        x = L.tensor(VALUES if dtype != "float16" else [min(max(v, -6e4), 6e4) for v in VALUES],
                     dtype=getattr(L, dtype))
        got.append(torch.tensor(L.nn.functional.silu(x).float().tolist()))
    torch.testing.assert_close(got[0], got[1], rtol=1e-6 if dtype in ("float32", "float64") else 1e-2,
                               atol=1e-30, equal_nan=True)
    numbers = ~got[1].isnan()  # (a NaN's sign bit means nothing)
    assert got[0][numbers].signbit().tolist() == got[1][numbers].signbit().tolist()  # -0 for a large negative x


def _grads(L: Any) -> tuple[Any, Any, str]:
    x = L.linspace(-8, 8, 41, dtype=L.float64).requires_grad_()
    y = L.nn.functional.silu(x)
    (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = L.autograd.grad((g * L.linspace(1, 2, 41, dtype=L.float64)).sum(), x)
    return g.detach(), gg, type(y.grad_fn).__name__


def test_first_and_second_derivative() -> None:
    eg, egg, ename = _grads(ember)
    tg, tgg, tname = _grads(torch)
    assert ename == tname == "SiluBackward0"
    torch.testing.assert_close(torch.tensor(eg.tolist(), dtype=torch.float64), tg)
    torch.testing.assert_close(torch.tensor(egg.tolist(), dtype=torch.float64), tgg)


def test_inplace() -> None:
    for L in (ember, torch):
        x = L.linspace(-3, 3, 7)
        y = L.nn.functional.silu(x, inplace=True)
        assert y is x
    with pytest.raises(RuntimeError, match="silu_cpu"):
        ember.nn.functional.silu(ember.arange(3))
