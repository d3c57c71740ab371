"""IEEE semantics of the activations, clamps and reductions, compared with PyTorch 2.13 (issue 16, point 3):
NaN and inf propagate as in torch, integer inputs keep their dtype, scalar arguments at their edges
(huge beta, NaN threshold, out-of-range bounds) give torch's values or its errors, dims are wrapped
(IndexError), and gradients agree."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ember
import ember.nn.functional as EF
import pytest

torch = pytest.importorskip("torch")
TF = torch.nn.functional

NAN, INF = math.nan, math.inf
# long enough that torch's vectorised path handles the specials (its scalar tail can differ, see below)
EDGES = [NAN, -INF, INF, -1e30, -6.0, -3.0, -1.0, -0.5, -0.0, 0.0, 1e-30, 0.5, 1.0, 3.0, 6.0, 1e30] * 4
INT_DTYPES = ["int64", "int32", "int16", "int8", "uint8"]


def _e(values: list, dtype: str, grad: bool = False) -> Any:
    return ember.tensor(values, dtype=getattr(ember, dtype), requires_grad=grad)


def _t(values: list, dtype: str, grad: bool = False) -> Any:
    return torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=grad)


def _same(e: Any, t: Any, rtol: float = 1.3e-6, atol: float = 1e-30) -> None:
    assert str(e.dtype) == str(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    torch.testing.assert_close(torch.from_numpy(e.detach().double().numpy() if e.is_floating_point() else
                                                e.detach().numpy()).to(t.dtype), t.detach(),
                               rtol=rtol, atol=atol, equal_nan=True)


def _both(fn_e: Callable, fn_t: Callable, values: list, dtype: str = "float32", grad: bool = True,
          rtol: float = 1.3e-6) -> None:
    """fn on the same values in ember and torch: the same result, dtype and (float dtypes) gradient."""
    xe, xt = _e(values, dtype, grad), _t(values, dtype, grad)
    ye, yt = fn_e(xe), fn_t(xt)
    _same(ye, yt, rtol)
    if grad:
        ge, = ember.autograd.grad(ye.sum(), xe)
        gt, = torch.autograd.grad(yt.sum(), xt)
        _same(ge, gt, rtol)


ACTIVATIONS = {
    "threshold": (lambda F: lambda x: F.threshold(x, 0.5, -2.0)),
    "threshold-nan-value": (lambda F: lambda x: F.threshold(x, 0.5, NAN)),
    "hardtanh": (lambda F: lambda x: F.hardtanh(x, -0.5, 2.0)),
    "relu6": (lambda F: lambda x: F.relu6(x)),
    "relu": (lambda F: lambda x: F.relu(x)),
    "hardsigmoid": (lambda F: lambda x: F.hardsigmoid(x)),
    "hardswish": (lambda F: lambda x: F.hardswish(x)),
    "leaky_relu": (lambda F: lambda x: F.leaky_relu(x, 0.1)),
    "elu": (lambda F: lambda x: F.elu(x)),
    "selu": (lambda F: lambda x: F.selu(x)),
    "celu": (lambda F: lambda x: F.celu(x, 0.5)),
    "silu": (lambda F: lambda x: F.silu(x)),
    "softplus": (lambda F: lambda x: F.softplus(x)),
    "logsigmoid": (lambda F: lambda x: F.logsigmoid(x)),
    "softshrink": (lambda F: lambda x: F.softshrink(x, 0.5)),
    "hardshrink": (lambda F: lambda x: F.hardshrink(x, 0.5)),
    "gelu-tanh": (lambda F: lambda x: F.gelu(x, approximate="tanh")),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_specials_values(name: str) -> None:
    """NaN stays NaN (threshold and hardsigmoid used to replace it), infinities as torch."""
    make = ACTIVATIONS[name]
    values = [v for v in EDGES if not (name == "gelu-tanh" and v == -INF)]
    _both(make(EF), make(TF), values, grad=False)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_finite_grads(name: str) -> None:
    make = ACTIVATIONS[name]
    values = [v for v in EDGES if math.isfinite(v) and abs(v) < 1e20 and v not in (-3.0, 3.0, -0.5, 0.5)]
    _both(make(EF), make(TF), values, "float64")


def test_hardtanh_backward_nan_is_zero() -> None:
    # torch's vectorised hardtanh_backward gives 0 at NaN (its scalar tail gives grad: a position-
    # and CPU-dependent answer); ember gives 0 everywhere, as for every element of a long tensor.
    e = ember._nn.hardtanh_backward(ember.ones(64), ember.full((64,), NAN), -1.0, 1.0)
    t = torch.ops.aten.hardtanh_backward(torch.ones(64), torch.full((64,), NAN), -1.0, 1.0)
    assert e.tolist()[:16] == t.tolist()[:16] == [0.0] * 16
    assert e.tolist() == [0.0] * 64


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("call", ["threshold", "hardtanh", "relu6", "hardtanh-float-bounds", "threshold-float"])
def test_integer_inputs_keep_dtype(dtype: str, call: str) -> None:
    values = [0, 1, 2, 3, 5, 6, 7, 100, 120] + ([] if dtype == "uint8" else [-1, -5, -100])
    fns = {
        "threshold": lambda F: lambda x: F.threshold(x, 2, 9),
        "threshold-float": lambda F: lambda x: F.threshold(x, 2.5, 9.7),
        "hardtanh": lambda F: lambda x: F.hardtanh(x, 1, 6),
        "hardtanh-float-bounds": lambda F: lambda x: F.hardtanh(x, 1.5, 6.9),
        "relu6": lambda F: lambda x: F.relu6(x),
    }
    _both(fns[call](EF), fns[call](TF), values, dtype, grad=False)


@pytest.mark.parametrize("args", [(NAN, 1.0), (0.5, NAN), (INF, 1), (1e30, 1), (2**40, 1), (-1.0, 0), (0, -256),
                                  (0, 300), (-1, 7)])
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_threshold_integer_scalar_range(args: tuple, dtype: str) -> None:
    """Out-of-range scalars raise torch's overflow RuntimeError (never an undefined conversion)."""
    values = [1, 2, 3, 250 if dtype == "uint8" else -3]
    try:
        t = torch.threshold(_t(values, dtype), *args)
    except RuntimeError as err:
        with pytest.raises(RuntimeError, match=str(err)):
            ember.threshold(_e(values, dtype), *args)
        return
    _same(ember.threshold(_e(values, dtype), *args), t)


@pytest.mark.parametrize("bounds", [(NAN, 2.0), (-1000, 1000), (-1e30, 1e30), (-1.0, 2.0), (-1.5, 2.5)])
@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8"])
def test_hardtanh_integer_bounds(bounds: tuple, dtype: str) -> None:
    values = [0, 1, 2, 3, 100]
    try:
        t = TF.hardtanh(_t(values, dtype), *bounds)
    except RuntimeError as err:
        with pytest.raises(RuntimeError, match=str(err)):
            EF.hardtanh(_e(values, dtype), *bounds)
        return
    _same(EF.hardtanh(_e(values, dtype), *bounds), t)


@pytest.mark.parametrize("fn", ["threshold", "hardtanh", "hardsigmoid", "gelu"])
def test_bool_and_int_errors(fn: str) -> None:
    calls = {"threshold": lambda F, x: F.threshold(x, 0.5, 1.0), "hardtanh": lambda F, x: F.hardtanh(x),
             "hardsigmoid": lambda F, x: F.hardsigmoid(x), "gelu": lambda F, x: F.gelu(x)}
    for dtype in ("bool", "int64"):
        try:
            calls[fn](TF, _t([1, 0], dtype))
        except Exception as err:  # noqa: BLE001 - the type is what is compared
            with pytest.raises(type(err)):
                calls[fn](EF, _e([1, 0], dtype))
            continue
        _same(calls[fn](EF, _e([1, 0], dtype)), calls[fn](TF, _t([1, 0], dtype)))


@pytest.mark.parametrize("beta,threshold", [(1.0, 20.0), (1e30, 20.0), (1.0, NAN), (2.0, INF), (1.0, -INF),
                                            (-1.0, 20.0), (0.5, 1.0), (1e-30, 20.0), (1e300, 20.0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softplus_edges(beta: float, threshold: float, dtype: str) -> None:
    values = [-100.0, -30.0, -1.0, -1e-30, 0.0, 1e-30, 0.5, 1.0, 10.0, 30.0, 100.0, INF, -INF, NAN]
    xe, xt = _e(values, dtype, True), _t(values, dtype, True)
    try:
        yt = TF.softplus(xt, beta, threshold)
    except RuntimeError as err:  # beta past float32: torch's overflow error
        with pytest.raises(RuntimeError, match=str(err)):
            EF.softplus(xe, beta, threshold)
        return
    ye = EF.softplus(xe, beta, threshold)
    _same(ye, yt)
    (ge,), (gt,) = ember.autograd.grad(ye.sum(), xe), torch.autograd.grad(yt.sum(), xt)
    _same(ge, gt)
    assert ye.grad_fn.name() == "SoftplusBackward0"


@pytest.mark.parametrize("dim", [-2**63, 2**63 - 1, 2, -3, 5])
def test_glu_dim_out_of_range(dim: int) -> None:
    with pytest.raises(IndexError, match="Dimension out of range"):
        TF.glu(torch.randn(4, 6), dim)
    with pytest.raises(IndexError, match="Dimension out of range"):
        EF.glu(ember.randn(4, 6), dim)


@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_glu_dims(dim: int) -> None:
    _both(lambda x: EF.glu(x.reshape(4, 6), dim), lambda x: TF.glu(x.reshape(4, 6), dim),
          [float(i % 7 - 3) / 2 for i in range(24)], "float64")


def test_glu_odd_dim_error() -> None:
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 0 is size 3"):
        TF.glu(torch.randn(3, 4), -2)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 0 is size 3"):
        EF.glu(ember.randn(3, 4), -2)


def test_grad_fn_names() -> None:
    x = ember.randn(4, requires_grad=True)
    names = {"GeluBackward0": EF.gelu(x), "HardtanhBackward0": EF.hardtanh(x),
             "HardsigmoidBackward0": EF.hardsigmoid(x), "ThresholdBackward0": EF.threshold(x, 0.1, 2.0),
             "SoftplusBackward0": EF.softplus(x)}
    for name, y in names.items():
        assert y.grad_fn.name() == name
    assert EF.relu6(x).grad_fn.name() == "HardtanhBackward0"
    t = torch.randn(4, requires_grad=True)
    assert TF.relu6(t).grad_fn.name() == "HardtanhBackward0"


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64"])
def test_trace_sees_only_the_diagonal(dtype: str) -> None:
    if dtype == "int64":
        vals = [[1, 2, 3], [4, 5, 6]]
    else:
        vals = [[1.0, NAN, INF], [-INF, 3.0, NAN], [NAN, NAN, 0.5]]
    _same(ember.trace(_e(vals, dtype)), torch.trace(_t(vals, dtype)))
    with pytest.raises(NotImplementedError):
        ember.trace(ember.ones(2, 2, dtype=ember.bool))


def test_trace_grad() -> None:
    _both(lambda x: ember.trace(x.reshape(3, 4)), lambda x: torch.trace(x.reshape(3, 4)),
          [float(i) for i in range(12)], "float64")


REDUCTIONS = {
    "max": lambda x: x.max(), "min": lambda x: x.min(), "amax": lambda x: x.amax(0), "amin": lambda x: x.amin(1),
    "max-dim": lambda x: x.max(1)[0], "min-dim": lambda x: x.min(0)[0], "sum": lambda x: x.sum(1),
    "mean": lambda x: x.mean(0), "prod": lambda x: x.prod(1), "norm": lambda x: x.norm(dim=1),
    "logsumexp": lambda x: x.logsumexp(1), "cumsum": lambda x: x.cumsum(1), "var": lambda x: x.var(1),
    "clamp": lambda x: x.clamp(-1.0, 1.0), "clamp-nan-min": lambda x: x.clamp(min=NAN),
    "maximum": lambda x: x.maximum(x.flip(0)), "minimum": lambda x: x.minimum(x.flip(1)),
    "fmax": lambda x: x.fmax(x.flip(0)), "argmax": lambda x: x.argmax(1), "argmin": lambda x: x.argmin(0),
    "nansum": lambda x: x.nansum(1),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_and_clamps_propagate_nan(name: str) -> None:
    vals = [1.0, NAN, -2.0, 3.0, INF, -INF, 0.5, 2.0, -1.0, 0.0, 4.0, NAN]
    fn = REDUCTIONS[name]
    xe, xt = _e(vals, "float32").reshape(3, 4), _t(vals, "float32").reshape(3, 4)
    _same(fn(xe), fn(xt))


@pytest.mark.parametrize("call", ["gelu", "gelu-tanh", "softplus", "softplus-beta", "hardsigmoid", "hardtanh"])
def test_kernels_double_backward(call: str) -> None:
    """The aten-style kernels keep second derivatives (float64 finite differences)."""
    fns = {"gelu": lambda x: EF.gelu(x), "gelu-tanh": lambda x: EF.gelu(x, approximate="tanh"),
           "softplus": lambda x: EF.softplus(x), "softplus-beta": lambda x: EF.softplus(x, 2.0, 1.5),
           "hardsigmoid": lambda x: EF.hardsigmoid(x), "hardtanh": lambda x: EF.hardtanh(x, -0.5, 0.5)}
    x = ember.tensor([-4.0, -2.5, -1.3, -0.7, -0.2, 0.1, 0.4, 0.9, 1.7, 2.2, 3.6, 5.0], dtype=ember.float64,
                     requires_grad=True)
    assert ember.autograd.gradcheck(fns[call], (x,), eps=1e-6, atol=1e-6)
    assert ember.autograd.gradgradcheck(fns[call], (x,), eps=1e-6, atol=1e-5)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_second_derivative_matches_torch(approximate: str) -> None:
    vals = [-6.0, -2.0, -0.5, 0.0, 0.3, 1.0, 2.5, 8.0]
    xe, xt = _e(vals, "float64", True), _t(vals, "float64", True)
    ge, = ember.autograd.grad(EF.gelu(xe, approximate=approximate).sum(), xe, create_graph=True)
    gt, = torch.autograd.grad(TF.gelu(xt, approximate=approximate).sum(), xt, create_graph=True)
    assert ge.grad_fn.name() == "GeluBackwardBackward0"
    (he,), (ht,) = ember.autograd.grad(ge.sum(), xe), torch.autograd.grad(gt.sum(), xt)
    _same(ge, gt, 1e-12, 1e-14)
    _same(he, ht, 1e-10, 1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_gelu_at_infinity(dtype: str) -> None:
    """gelu(+inf) = inf (PyTorch's float32/bfloat16 vectorised erf says NaN: torch_known_wrong.py);
    gelu(-inf) = -inf * 0 = NaN and NaN stays NaN, as PyTorch in every dtype."""
    vals = [INF, -INF, NAN, 2.0**100 if dtype != "float16" else 2.0**15] * 8
    e = EF.gelu(_e(vals, dtype)).float().tolist()
    t64 = TF.gelu(_t(vals, "float64")).tolist()
    assert e[:4] == pytest.approx([INF, NAN, NAN, vals[3]], nan_ok=True)
    assert e[:4] == pytest.approx(t64[:4], nan_ok=True)
