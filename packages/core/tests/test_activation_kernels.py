"""The native activation kernel pairs of ops/nn_activation.yaml that replaced Python composites (silu,
hardswish, elu with selu and celu, leaky_relu, hardshrink, softshrink, logsigmoid, glu) against torch's: values in every float dtype, the first and second
derivative, the node's name, and the in-place form."""

from __future__ import annotations

from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")

VALUES = [float("nan"), float("-inf"), -1e30, -100.0, -20.0, -3.0, -0.5, -0.0, 0.0, 1e-30, 0.5, 3.0, 20.0, 100.0,
          1e30, float("inf")]


VALUES += [-3.0, -2.9, 2.9, 6.0]
# case -> (F's function, its keyword arguments, the node torch records, aten's kernel name)
ACTIVATIONS = {"silu": ("silu", {}, "SiluBackward0", "silu"),
               "hardswish": ("hardswish", {}, "HardswishBackward0", "hardswish"),
               "elu": ("elu", {}, "EluBackward0", "elu"), "elu-alpha": ("elu", {"alpha": 0.3}, "EluBackward0", "elu"),
               "elu-negative-alpha": ("elu", {"alpha": -2.5}, "EluBackward0", "elu"),
               "selu": ("selu", {}, "EluBackward0", "elu"),
               "celu": ("celu", {"alpha": 0.7}, "CeluBackward0", "elu"),
               "celu-negative-alpha": ("celu", {"alpha": -1.5}, "CeluBackward0", "elu"),
               "leaky_relu": ("leaky_relu", {}, "LeakyReluBackward0", "leaky_relu"),
               "leaky_relu-negative-slope": ("leaky_relu", {"negative_slope": -0.5}, "LeakyReluBackward0", "leaky_relu"),
               "hardshrink": ("hardshrink", {"lambd": 0.3}, "HardshrinkBackward0", "hardshrink"),
               "softshrink": ("softshrink", {"lambd": 0.3}, "SoftshrinkBackward0", "softshrink_check"),
               "logsigmoid": ("logsigmoid", {}, "LogSigmoidBackward0", "log_sigmoid")}
INPLACE_FORMS = {"silu", "hardswish", "elu", "selu", "celu", "leaky_relu"}


def _call(L: Any, case: str, x: Any, **kw: Any) -> Any:
    name, kwargs = ACTIVATIONS[case][:2]
    return getattr(L.nn.functional, name)(x, **kwargs, **kw)


@pytest.mark.parametrize("case", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_values(case: str, dtype: str) -> None:
    got = []
    for L in (ember, torch):
        x = L.tensor(VALUES if dtype != "float16" else [min(max(v, -6e4), 6e4) for v in VALUES],
                     dtype=getattr(L, dtype))
        got.append(torch.tensor(_call(L, case, x).float().tolist()))
    torch.testing.assert_close(got[0], got[1], rtol=1e-6 if dtype in ("float32", "float64") else 1e-2,
                               atol=1e-30, equal_nan=True)
    if case == "softshrink":  # torch's zero band: +0 on its vector path, x * 0 (-0 for x < 0) on its scalar tail
        return
    numbers = ~got[1].isnan()  # (a NaN's sign bit means nothing)
    assert got[0][numbers].signbit().tolist() == got[1][numbers].signbit().tolist()  # -0 for a large negative x


def _grads(L: Any, case: str) -> tuple[Any, Any, str]:
    x = L.linspace(-8, 8, 41, dtype=L.float64).requires_grad_()  # -3, 0 and 3 among the points
    y = _call(L, case, x)
    (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = L.autograd.grad((g * L.linspace(1, 2, 41, dtype=L.float64)).sum(), x)
    return g.detach(), gg, type(y.grad_fn).__name__


@pytest.mark.parametrize("case", sorted(ACTIVATIONS))
def test_first_and_second_derivative(case: str) -> None:
    eg, egg, ename = _grads(ember, case)
    tg, tgg, tname = _grads(torch, case)
    assert ename == tname == ACTIVATIONS[case][2]
    torch.testing.assert_close(torch.tensor(eg.tolist(), dtype=torch.float64), tg)
    torch.testing.assert_close(torch.tensor(egg.tolist(), dtype=torch.float64), tgg)


@pytest.mark.parametrize("case", sorted(c for c in ACTIVATIONS if ACTIVATIONS[c][0] in INPLACE_FORMS))
def test_inplace(case: str) -> None:
    got = []
    for L in (ember, torch):
        x = L.linspace(-4, 4, 9)
        y = _call(L, case, x, inplace=True)
        assert y is x
        got.append(x.tolist())
    assert got[0] == got[1]
    with pytest.raises((RuntimeError, NotImplementedError), match=f"{ACTIVATIONS[case][3]}_cpu"):
        _call(ember, case, ember.arange(3))


INPLACE_NODES = {"elu": "EluBackward1", "elu-alpha": "EluBackward1", "selu": "EluBackward1", "celu": "CeluBackward1",
                 "leaky_relu": "LeakyReluBackward1"}


@pytest.mark.parametrize("case", sorted(INPLACE_NODES))
def test_inplace_gradient_from_the_result(case: str) -> None:
    """elu_ / selu_ / celu_ differentiate from the result they wrote (aten's is_result form)."""
    got = []
    for L in (ember, torch):
        x = L.linspace(-4, 4, 17, dtype=L.float64).requires_grad_()
        y = x * 1.5
        _call(L, case, y, inplace=True)
        assert type(y.grad_fn).__name__ == INPLACE_NODES[case]
        (g,) = L.autograd.grad(y, x, L.linspace(1, 2, 17, dtype=L.float64), create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), x)
        got.append((g.tolist(), gg.tolist()))
    torch.testing.assert_close(torch.tensor(got[0], dtype=torch.float64), torch.tensor(got[1], dtype=torch.float64))


@pytest.mark.parametrize("case", ["elu-negative-alpha", "celu-negative-alpha", "leaky_relu-negative-slope"])
def test_inplace_negative_slope_backward_raises(case: str) -> None:
    """A negative slope hides the input's sign in the result: aten refuses the in-place form's backward."""
    for L in (ember, torch):
        x = L.linspace(-4, 4, 9).requires_grad_()
        y = x * 1
        _call(L, case, y, inplace=True)
        with pytest.raises(RuntimeError, match="In-place (elu|leakyReLu) backward calculation is triggered with a "
                                               "negative slope"):
            y.sum().backward()


@pytest.mark.parametrize("alpha", [0.0, -0.0])
def test_celu_alpha_zero(alpha: float) -> None:
    for L in (ember, torch):
        with pytest.raises(RuntimeError, match="ZeroDivisionError: alpha cannot be 0 for CELU"):
            L.celu(L.ones(2), alpha)


def test_log_sigmoid_backward_buffer_takes_no_gradient() -> None:
    """aten's log_sigmoid_backward has no derivative for its buffer: a buffer that requires grad is refused."""
    for L in (ember, torch):
        g, x, b = L.ones(3), L.tensor([-1.0, 0.0, 2.0]), L.rand(3).requires_grad_()
        backward = L.ops.aten.log_sigmoid_backward if L is torch else L._nn.log_sigmoid_backward
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'buffer'"):
            backward(g, x, b)


# ---- glu: aten's kernel pair (GluBackward0, GluBackwardBackward0) instead of a * sigmoid(b) ----

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_glu_values(dtype: str, dim: int) -> None:
    vals = [min(max(v, -6e4), 6e4) for v in VALUES]  # 20 values: a 4 x 5 grid halves along 0, 5 x 4 along 1
    got = []
    for L in (ember, torch):
        x = L.tensor(vals, dtype=getattr(L, dtype)).reshape((4, 5) if dim == 0 else (5, 4))
        got.append(torch.tensor(L.nn.functional.glu(x, dim).float().tolist()))
    torch.testing.assert_close(got[0], got[1], rtol=1e-6 if dtype in ("float32", "float64") else 1e-2, atol=1e-30,
                               equal_nan=True)


def _glu_grads(L: Any) -> tuple:
    """First and second derivatives of glu along dim 1, and the double backward into grad_output."""
    x = L.linspace(-6, 6, 48, dtype=L.float64).reshape(4, 12).requires_grad_()
    go = L.linspace(-1, 2, 24, dtype=L.float64).reshape(4, 6).requires_grad_()
    y = L.nn.functional.glu(x, 1)
    (g,) = L.autograd.grad(y, x, go, create_graph=True)
    w = L.linspace(1, 2, 48, dtype=L.float64).reshape(4, 12)
    gx, ggo = L.autograd.grad((g * w).sum(), (x, go))
    return [t.detach().tolist() for t in (y, g, gx, ggo)], type(y.grad_fn).__name__, type(g.grad_fn).__name__


def test_glu_derivatives_and_nodes() -> None:
    got, names = _glu_grads(ember), _glu_grads(torch)
    assert got[1:] == names[1:] == ("GluBackward0", "GluBackwardBackward0")
    for e, t in zip(got[0], names[0], strict=True):
        torch.testing.assert_close(torch.tensor(e, dtype=torch.float64), torch.tensor(t, dtype=torch.float64))
