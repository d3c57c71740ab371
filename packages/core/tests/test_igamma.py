"""igamma / igammac (special.gammainc / gammaincc) against PyTorch 2.13: a dense grid of edge values
(a or x zero, negative, tiny, huge, inf, NaN) in every float dtype, random arguments across the
series / continued-fraction / Temme regions, the variants (method, in-place, out=), the dtype rules
and the gradient (in x only, as PyTorch). The generic parity, gradient and fuzz tests walk them too
(BINARY_DOMAIN in test_parity.py); where PyTorch itself is wrong, mpmath decides (_torch_wrong)."""

from __future__ import annotations

import math
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
import ember.special  # noqa: E402, F401

INF, NAN = math.inf, math.nan
EDGES = (
    -INF,
    -1.0,
    -0.0,
    0.0,
    5e-324,
    1e-30,
    1e-5,
    0.1,
    0.5,
    1.0,
    1.05,
    1.1,
    1.5,
    2.5,
    10.0,
    19.9,
    20.5,
    50.0,
    150.0,
    199.0,
    200.0,
    201.0,
    1e3,
    1e4,
    1e6,
    1e10,
    1e20,
    1e300,
    INF,
    NAN,
)
FLOATS = ("float64", "float32", "float16", "bfloat16")
# The reference is PyTorch's float64 kernel on the same (rounded) inputs, rounded to the dtype: its
# float32 kernel computes in float and is up to 5e-4 off (torch_known_wrong.py "igamma-float32"),
# ember's computes in double for every dtype. float64: PyTorch's Temme region (20 < a < 200, x near a)
# is only ~1.5e-9 relative right (mpmath: igamma(23.78, 19.29) = 0.179588504244090, PyTorch
# 0.179588503998623); ember's is within 1e-15 there, test_mpmath holds it to that.
TOL = {"float64": (1e-8, 1e-300), "float32": (3e-7, 1e-37), "float16": (1e-3, 1e-7), "bfloat16": (8e-3, 1e-30)}


def _pair(t: Any) -> Any:
    return ember.tensor(t.tolist(), dtype=getattr(ember, str(t.dtype).split(".")[1]))


def _torch(e: Any) -> Any:
    return torch.tensor(
        e.float().tolist() if str(e.dtype) in ("ember.float16", "ember.bfloat16") else e.tolist(),
        dtype=getattr(torch, str(e.dtype).split(".")[1]),
    )


def _torch_wrong(name: str, a: Any, x: Any) -> Any:
    """Where PyTorch is known wrong: Q(a, x) for a < 1e-6 and x <= 1.1 (torch_known_wrong.py's
    "igammac-tiny-a": igammac(1e-30, 1.1) is 7.6e-31, mpmath says 1.8599e-31). A mask of those points."""
    return (name == "igammac") & (a > 0) & (a < 1e-6) & (x > 0) & (x <= 1.1)


def _mpmath(name: str, a: float, x: float) -> float:
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(40):
        lower = name == "igamma"
        return float(
            mpmath.gammainc(a, 0, x, regularized=True) if lower else mpmath.gammainc(a, x, mpmath.inf, regularized=True)
        )


def _check(name: str, ta: Any, tx: Any, dtype: str) -> None:
    got = _torch(getattr(ember, name)(_pair(ta), _pair(tx)))
    assert got.dtype == getattr(torch, name)(ta[:0], tx[:0]).dtype
    a, x = torch.broadcast_tensors(ta.double(), tx.double())
    want = getattr(torch, name)(a, x)
    for i in _torch_wrong(name, a, x).nonzero().tolist():
        want[tuple(i)] = _mpmath(name, a[tuple(i)].item(), x[tuple(i)].item())
    rtol, atol = TOL[dtype]
    torch.testing.assert_close(got, want.to(got.dtype), rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_edge_grid(name: str, dtype: str) -> None:
    dt = getattr(torch, dtype)
    a = torch.tensor(EDGES, dtype=torch.float64).to(dt).reshape(-1, 1)
    _check(name, a, a.reshape(1, -1), dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_random_regions(name: str, dtype: str) -> None:
    g = torch.Generator().manual_seed(0)
    dt = getattr(torch, dtype)
    a = torch.cat(
        [
            10 ** (torch.rand(2000, generator=g, dtype=torch.float64) * 8 - 4),  # everywhere
            10 ** (torch.rand(2000, generator=g, dtype=torch.float64) * 7),
        ]
    )  # Temme: x near a
    x = torch.cat(
        [
            10 ** (torch.rand(2000, generator=g, dtype=torch.float64) * 8 - 4),
            a[2000:] * (1 + torch.randn(2000, generator=g, dtype=torch.float64) / a[2000:].sqrt()),
        ]
    )
    _check(name, a.to(dt), x.to(dt), dtype)


def test_aliases_and_methods() -> None:
    assert ember.special.gammainc is ember.igamma and ember.special.gammaincc is ember.igammac
    a, x = torch.tensor([0.5, 3.0, 20.0]), torch.tensor([[0.25], [2.0]])
    ea, ex = _pair(a), _pair(x)
    for name in ("igamma", "igammac"):
        torch.testing.assert_close(_torch(getattr(ea, name)(ex)), getattr(a, name)(x))
        t, e = a.clone().expand(2, 3).contiguous(), ea.expand(2, 3).contiguous()
        getattr(t, name + "_")(x)
        assert getattr(e, name + "_")(ex) is e
        torch.testing.assert_close(_torch(e), t)
        out_t, out_e = torch.empty(0, dtype=torch.float64), ember.empty(0, dtype=ember.float64)
        getattr(torch, name)(a, x, out=out_t)
        assert getattr(ember, name)(ea, ex, out=out_e) is out_e
        torch.testing.assert_close(_torch(out_e), out_t)


def _raises(f: Any, g: Any) -> None:
    with pytest.raises(Exception) as te:
        f(torch)
    with pytest.raises(type(te.value)) as ee:
        g(ember)
    assert str(ee.value) == str(te.value), (str(ee.value), str(te.value))


def test_dtype_rules() -> None:
    assert ember.igamma(ember.tensor([1, 2]), ember.tensor([1.0, 2.0])).dtype == ember.float32
    assert ember.igamma(ember.tensor([1.0]), ember.tensor(1.0, dtype=ember.float64)).dtype == ember.float32
    _raises(
        lambda m: m.igamma(m.tensor([1, 2]), m.tensor([1, 2])), lambda m: m.igamma(m.tensor([1, 2]), m.tensor([1, 2]))
    )
    _raises(
        lambda m: m.igammac(m.tensor([True]), m.tensor([True])), lambda m: m.igammac(m.tensor([True]), m.tensor([True]))
    )
    _raises(lambda m: m.tensor([1]).igamma_(m.tensor([1.0])), lambda m: m.tensor([1]).igamma_(m.tensor([1.0])))
    _raises(
        lambda m: m.igamma(m.tensor([1.0]), m.tensor([1.0]), out=m.empty(1, dtype=m.int64)),
        lambda m: m.igamma(m.tensor([1.0]), m.tensor([1.0]), out=m.empty(1, dtype=m.int64)),
    )
    with pytest.raises(TypeError):
        ember.igamma(ember.tensor([1.0]), 2.0)
    with pytest.raises(RuntimeError):
        ember.igamma(ember.ones(3), ember.ones(4))


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_gradient(name: str) -> None:
    a = torch.tensor([0.5, 1.0, 2.5, 30.0, 1.0, 3.0], dtype=torch.float64)
    x = torch.tensor([0.2, 1.0, 2.0, 31.0, 0.0, 1e-3], dtype=torch.float64, requires_grad=True)
    ex = _pair(x.detach()).requires_grad_()
    getattr(torch, name)(a, x).sum().backward()
    y = getattr(ember, name)(_pair(a), ex)
    assert type(y.grad_fn).__name__ == name.capitalize() + "Backward0"
    y.sum().backward()
    torch.testing.assert_close(_torch(ex.grad), x.grad, rtol=1e-12, atol=0, equal_nan=True)
    assert ember.autograd.gradcheck(
        lambda t: getattr(ember, name)(_pair(a[:4]), t), (ex[:4].detach().requires_grad_(),)
    )
    # no derivative in a: PyTorch's NotImplementedError, raised by backward
    _raises(
        lambda m: getattr(m, name)(m.tensor([2.0], requires_grad=True), m.tensor([1.0])).sum().backward(),
        lambda m: getattr(m, name)(m.tensor([2.0], requires_grad=True), m.tensor([1.0])).sum().backward(),
    )


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_mpmath(name: str) -> None:
    """ember's float64 against mpmath at 40 digits, across the regions (where PyTorch is less exact)."""
    g = torch.Generator().manual_seed(1)
    a = torch.cat(
        [
            10 ** (torch.rand(60, generator=g, dtype=torch.float64) * 6 - 3),
            20 + 180 * torch.rand(40, generator=g, dtype=torch.float64),
        ]
    )
    x = torch.cat(
        [
            10 ** (torch.rand(60, generator=g, dtype=torch.float64) * 6 - 3),
            a[60:] * (0.75 + 0.5 * torch.rand(40, generator=g, dtype=torch.float64)),
        ]
    )
    got = getattr(ember, name)(_pair(a), _pair(x)).tolist()
    for ai, xi, gi in zip(a.tolist(), x.tolist(), got, strict=True):
        want = _mpmath(name, ai, xi)
        if want > 1e-100:  # below, exp of a large negative exponent amplifies rounding (~1e-12)
            assert gi == pytest.approx(want, rel=1e-13), (ai, xi)
