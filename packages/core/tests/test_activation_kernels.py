"""The native activation kernel pairs of ops/nn_activation.yaml that replaced Python composites (silu,
hardswish) against torch's: values in every float dtype, the first and second derivative, the node's
name, and the in-place form."""

from __future__ import annotations

from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")

VALUES = [float("nan"), float("-inf"), -1e30, -100.0, -20.0, -3.0, -0.5, -0.0, 0.0, 1e-30, 0.5, 3.0, 20.0, 100.0,
          1e30, float("inf")]


VALUES += [-3.0, -2.9, 2.9, 6.0]
ACTIVATIONS = {"silu": "SiluBackward0", "hardswish": "HardswishBackward0"}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_values(name: str, dtype: str) -> None:
    got = []
    for L in (ember, torch):
        x = L.tensor(VALUES if dtype != "float16" else [min(max(v, -6e4), 6e4) for v in VALUES],
                     dtype=getattr(L, dtype))
        got.append(torch.tensor(getattr(L.nn.functional, name)(x).float().tolist()))
    torch.testing.assert_close(got[0], got[1], rtol=1e-6 if dtype in ("float32", "float64") else 1e-2,
                               atol=1e-30, equal_nan=True)
    numbers = ~got[1].isnan()  # (a NaN's sign bit means nothing)
    assert got[0][numbers].signbit().tolist() == got[1][numbers].signbit().tolist()  # -0 for a large negative x


def _grads(L: Any, name: str) -> tuple[Any, Any, str]:
    x = L.linspace(-8, 8, 41, dtype=L.float64).requires_grad_()  # -3 and 3 among the points
    y = getattr(L.nn.functional, name)(x)
    (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = L.autograd.grad((g * L.linspace(1, 2, 41, dtype=L.float64)).sum(), x)
    return g.detach(), gg, type(y.grad_fn).__name__


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_first_and_second_derivative(name: str) -> None:
    eg, egg, ename = _grads(ember, name)
    tg, tgg, tname = _grads(torch, name)
    assert ename == tname == ACTIVATIONS[name]
    torch.testing.assert_close(torch.tensor(eg.tolist(), dtype=torch.float64), tg)
    torch.testing.assert_close(torch.tensor(egg.tolist(), dtype=torch.float64), tgg)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_inplace(name: str) -> None:
    got = []
    for L in (ember, torch):
        x = L.linspace(-4, 4, 9)
        y = getattr(L.nn.functional, name)(x, inplace=True)
        assert y is x
        got.append(x.tolist())
    assert got[0] == got[1]
    with pytest.raises((RuntimeError, NotImplementedError), match=f"{name}_cpu"):
        getattr(ember.nn.functional, name)(ember.arange(3))
