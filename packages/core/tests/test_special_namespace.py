"""ember.special's aliases and the Python-level names of issue 22's special-function slice, against
PyTorch: window functions, constants, range/trapz/fill, is_same_size/is_signed/isreal, mvlgamma
(forward, gradcheck), the torch.<op>_ function forms and the Tensor methods. The kernel-backed
special functions are in the generic parity tests (ops/special.yaml, tests/parity_special.py)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
import ember.special  # noqa: E402, F401


def E(t: Any) -> Any:
    return ember.tensor(t.tolist(), dtype=getattr(ember, str(t.dtype).split(".")[1]))


def same(e: Any, t: Any, rtol: float = 1.3e-6, atol: float = 1e-6) -> None:
    assert str(e.dtype) == str(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    torch.testing.assert_close(torch.tensor(e.tolist(), dtype=t.dtype), t, rtol=rtol, atol=atol, equal_nan=True)


def test_special_dir_matches_torch() -> None:
    missing = {n for n in dir(torch.special) if not n.startswith("_") and not hasattr(ember.special, n)}
    # module internals only (gammainc / gammaincc: test_igamma.py)
    assert missing <= {"Tensor", "torch", "common_args", "multi_dim_common"}, missing


ALIAS_INPUT = torch.tensor([-2.5, -0.5, 0.0, 0.3, 1.0, 4.0, math.nan, math.inf])


@pytest.mark.parametrize("name", ["digamma", "psi", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln",
                                  "i0", "log1p", "logit", "round", "sinc"])
def test_unary_aliases(name: str) -> None:
    x = ALIAS_INPUT.clone()
    if name == "erfinv":
        x = torch.tensor([-1.0, -0.5, 0.0, 0.25, 0.999, 1.0, math.nan, 2.0])
    same(getattr(ember.special, name)(E(x)), getattr(torch.special, name)(x))


def test_other_aliases_and_reductions() -> None:
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    y = torch.rand(3, 4, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    same(ember.special.xlogy(E(x), E(y)), torch.special.xlogy(x, y))
    same(ember.special.polygamma(2, E(y)), torch.special.polygamma(2, y), rtol=1e-6)
    same(ember.special.logsumexp(E(x), 1), torch.special.logsumexp(x, 1))
    same(ember.special.softmax(E(x), 0), torch.special.softmax(x, 0))
    same(ember.special.log_softmax(E(x), 1, dtype=ember.float32), torch.special.log_softmax(x, 1, dtype=torch.float32))
    same(ember.special.multigammaln(E(y + 2), 3), torch.special.multigammaln(y + 2, 3))


@pytest.mark.parametrize("p", [1, 2, 5])
def test_mvlgamma(p: int) -> None:
    x = torch.tensor([[2.5, 3.0, 10.0], [0.4, 7.5, math.nan]], dtype=torch.float64)
    same(ember.mvlgamma(E(x), p), torch.mvlgamma(x, p))
    same(E(x).mvlgamma(p), x.mvlgamma(p))
    xi = torch.tensor([3, 4, 8])
    same(ember.mvlgamma(E(xi), p), torch.mvlgamma(xi, p))
    e = E(x.float())
    assert e.mvlgamma_(p) is e
    same(e, x.float().mvlgamma_(p))
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        ember.mvlgamma(E(x), 0)
    xg = ember.tensor([[2.5, 3.0], [4.0, 9.5]], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.mvlgamma(t, p), (xg,))


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name: str, n: int, periodic: bool) -> None:
    for kw, ekw in (({}, {}), ({"dtype": torch.float64}, {"dtype": ember.float64})):
        same(getattr(ember, name)(n, periodic, **ekw), getattr(torch, name)(n, periodic, **kw), atol=1e-6)
    if name == "hamming_window":
        same(ember.hamming_window(n, periodic, 0.5, 0.4), torch.hamming_window(n, periodic, 0.5, 0.4))
    if name == "kaiser_window":
        same(ember.kaiser_window(n, periodic, 5.0), torch.kaiser_window(n, periodic, 5.0))


def test_window_errors() -> None:
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="expects floating point dtypes"):
            lib.hann_window(4, dtype=lib.int64)
        with pytest.raises(RuntimeError, match="requires non-negative window_length"):
            lib.blackman_window(-1)
    assert ember.hann_window(3, requires_grad=True).requires_grad


def test_constants() -> None:
    for n in ("e", "pi", "inf", "nan", "newaxis"):
        a, b = getattr(ember, n), getattr(torch, n)
        assert a is b or a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("args", [(1, 4), (0, 1, 0.3), (-1, -3, -0.5), (2, 2)])
def test_range(args: tuple) -> None:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        same(ember.range(*args), torch.range(*args))
        same(ember.range(*args, dtype=ember.float64), torch.range(*args, dtype=torch.float64))
    assert any("deprecated" in str(x.message) for x in w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="inconsistent with step sign"):
            ember.range(4, 1)


def test_trapz_fill_and_predicates() -> None:
    y = torch.tensor([[1.0, 2.0, 4.0], [0.5, 0.0, -1.0]])
    x = torch.tensor([0.0, 1.0, 3.0])
    same(ember.trapz(E(y), E(x)), torch.trapz(y, x))
    same(ember.trapz(E(y), dx=2.0), torch.trapz(y, dx=2.0))
    same(ember.trapz(E(y), dim=0), torch.trapz(y, dim=0))
    same(ember.fill(E(y), 3), torch.fill(y, 3))
    same(ember.fill(E(y), ember.tensor(2.5)), torch.fill(y, torch.tensor(2.5)))
    for a, b in (((2, 3), (2, 3)), ((2, 3), (3, 2)), ((3,), ())):
        assert ember.is_same_size(ember.zeros(a), ember.zeros(b)) == torch.is_same_size(torch.zeros(a), torch.zeros(b))
        assert ember.zeros(a).is_same_size(ember.zeros(b)) == torch.zeros(a).is_same_size(torch.zeros(b))
    for dt in ("bool", "uint8", "int8", "int64", "float16", "float32"):
        assert ember.is_signed(ember.zeros(2, dtype=getattr(ember, dt))) == torch.is_signed(
            torch.zeros(2, dtype=getattr(torch, dt)))
        same(ember.isreal(ember.zeros(2, dtype=getattr(ember, dt))), torch.isreal(torch.zeros(2, dtype=getattr(torch, dt))))
    same(E(y).isreal(), y.isreal())


@pytest.mark.parametrize("name", ["abs_", "sin_", "exp_", "sqrt_", "neg_", "round_", "clamp_", "sigmoid_", "i0_",
                                  "xlogy_", "square_", "trunc_"])
def test_inplace_functions(name: str) -> None:
    t = torch.tensor([0.25, -1.5, 2.0, 0.0])
    e = E(t)
    args = {"clamp_": (-1.0, 1.0), "xlogy_": (2.0,)}.get(name, ())
    r = getattr(ember, name)(e, *args)
    assert r is e
    same(e, getattr(torch, name)(t, *args))
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'input'"):
        getattr(ember, name)(3)


def test_tensor_methods() -> None:
    x = torch.tensor([0.5, 1.5, 3.0], dtype=torch.float64)
    same(E(x).polygamma(1), x.polygamma(1), rtol=1e-6)
    e = E(x)
    assert e.polygamma_(2) is e
    same(e, x.clone().polygamma_(2), rtol=1e-6)
    same(E(x).i0(), x.i0())
    e = E(x)
    assert e.i0_() is e
    same(e, x.clone().i0_())
    h = torch.tensor([-1.0, 0.2, 0.7, -0.4])
    same(E(h).hardshrink(), h.hardshrink())
    same(E(h).hardshrink(0.3), h.hardshrink(0.3))
    assert E(torch.tensor([2.0])).is_nonzero() is True
    assert ember.tensor(0).is_nonzero() is False
    for bad in (torch.tensor([]), torch.tensor([1, 2])):
        with pytest.raises(RuntimeError) as te:
            bad.is_nonzero()
        with pytest.raises(RuntimeError, match=str(te.value)):
            E(bad).is_nonzero()


@pytest.mark.parametrize("shape, wrap", [((2, 3), False), ((3, 3), False), ((7, 3), False), ((7, 3), True),
                                         ((3, 7), True), ((3, 3, 3), False), ((4, 4), True)])
def test_fill_diagonal_(shape: tuple, wrap: bool) -> None:
    t = torch.ones(shape)
    e = E(t)
    assert e.fill_diagonal_(5.0, wrap=wrap) is e
    same(e, t.fill_diagonal_(5.0, wrap=wrap))


def test_fill_diagonal_errors() -> None:
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
            lib.ones(3).fill_diagonal_(1)
        with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
            lib.ones(2, 3, 3).fill_diagonal_(1)
