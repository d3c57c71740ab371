"""The vectorised elementwise kernels at the ends of their ranges, against PyTorch.

vec_math.h keeps every intermediate normal for normal inputs with normal (or zero) results
(tests/cpp/vec_math_check.cpp checks the CPU flags): tiny inputs are held away from zero and
the result put back where the function rounds to x, large ones clamped where the result is
exactly 0 or 1. This checks that those clamps and thresholds give PyTorch's values."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

OPS = ["exp", "exp2", "expm1", "log1p", "tanh", "sigmoid", "sin", "cos", "tan", "erf", "erfc", "atan", "asin",
       "acos", "sinh", "cosh", "asinh", "atanh", "lgamma"]
EPS = {"float32": 2.0 ** -23, "float64": 2.0 ** -52}


def extremes(dtype: str) -> np.ndarray:
    """Tiny magnitudes down to the smallest normal, the thresholds near 2^-26 / 2^-54, large ones
    up to the largest finite value, and the infinities; both signs."""
    fi = np.finfo(dtype)
    tiny = np.geomspace(float(fi.tiny), 1e-3, 2001)
    edges = np.concatenate([np.geomspace(2.0 ** -30, 2.0 ** -22, 401), np.geomspace(2.0 ** -58, 2.0 ** -50, 401)])
    big = np.geomspace(1.0, float(fi.max) * 0.99, 2001)  # (the last power would round to inf)
    x = np.concatenate([tiny, edges, big, [math.inf, 17.0, 20.0, 40.0, 87.0, 104.0, 176.0, 254.0, 745.0, 1418.0]])
    return np.concatenate([x, -x]).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", OPS)
def test_extremes_match_torch(op: str, dtype: str) -> None:
    x = extremes(dtype)
    if op in ("asin", "acos", "atanh"):
        x = x[np.abs(x) < 1]
    with np.errstate(all="ignore"):
        got = getattr(ember, op)(ember.tensor(x)).numpy()
        # float32: PyTorch's float64 result, rounded (its float32 sigmoid gives 1 at 17 and 0 at -92,
        # where the results are 1 - 2^-24 and 8.8e-41)
        want = getattr(torch, op)(torch.from_numpy(x.astype(np.float64))).numpy().astype(dtype)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{op}: NaN")
    inf = np.isinf(want) | np.isinf(got)
    np.testing.assert_array_equal(got[inf], want[inf], err_msg=f"{op}: infinities")
    fin = ~inf & ~np.isnan(want)
    g, w = got[fin].astype(np.float64), want[fin].astype(np.float64)
    # relative (both libraries within ~2 ulps), absolutely near underflow
    tol = 4 * EPS[dtype] * np.maximum(np.abs(w), float(np.finfo(dtype).tiny))
    bad = np.abs(g - w) > tol
    assert not bad.any(), f"{op} {dtype}: x={x[fin][bad][:5]} ember={g[bad][:5]} torch={w[bad][:5]}"
    # saturated results of large inputs (sigmoid / tanh / erf at +-1 or 0, exp of -inf) match exactly
    exact = np.isin(w, [0.0, 1.0, -1.0]) & (np.abs(x[fin]) >= (50 if dtype == "float32" else 1500))
    np.testing.assert_array_equal(g[exact], w[exact], err_msg=f"{op}: saturated values")


@pytest.mark.parametrize("fill", [-math.inf, -1e9, float(np.finfo(np.float32).min)])
def test_masked_softmax_exact_zeros(fill: float) -> None:
    """A causal mask's entries (exp of -inf or of a huge negative) come out exactly 0."""
    s = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    s[np.triu_indices(64, 1)] = fill
    got = ember.softmax(ember.tensor(s), dim=-1).numpy()
    want = torch.softmax(torch.from_numpy(s), dim=-1).numpy()
    assert (got[np.triu_indices(64, 1)] == 0).all()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_lgamma_float32() -> None:
    """vec_lgamma.h (positive float32, vectorised in double) near its zeros, across the shift at 7 and
    on the scalar path (x <= 0): within 2 ulps of the float64 result where positive, exactly 0 at 1 and 2."""
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(0, 20, 20001), 1 + rng.uniform(-1e-3, 1e-3, 2001), 2 + rng.uniform(-1e-3, 1e-3, 2001),
                        np.nextafter(np.float32(7), np.float32([0, 8])), [1.0, 2.0, 7.0, 0.5, 1e-45],
                        -rng.uniform(0, 10, 2001) - 0.25]).astype(np.float32)
    got = ember.lgamma(ember.tensor(x)).numpy()
    want = torch.lgamma(torch.from_numpy(x.astype(np.float64))).numpy()
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    err = np.abs(got.astype(np.float64) - want) / ulp
    pos = x > 0  # (x <= 0 is glibc's lgammaf: 2.9 ulps here)
    assert err[pos].max() <= 2, f"x={x[pos][err[pos].argmax()]!r}"
    assert err[~pos].max() <= 8, f"x={x[~pos][err[~pos].argmax()]!r}"
    assert (got[np.isin(x, [1.0, 2.0])] == 0).all()


def test_gelu_float32_accuracy() -> None:
    """gelu in float32 (vec_normcdf.h: Phi without 1 + erf's cancellation) against float64: within
    8 ulps from -3 up (PyTorch's float32: 1900 there), relative 1e-5 in the lower tail to -5.4, 0
    beyond; its gradient within 2e-7 (PyTorch's float32: 2.6e-7)."""
    x = np.concatenate([np.linspace(-8, 8, 160001), [0.0, -0.0, 5.7, -5.7, 30.0, -30.0]]).astype(np.float32)
    xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x.astype(np.float64), requires_grad=True)
    ye, yt = ember.nn.functional.gelu(xe), torch.nn.functional.gelu(xt)
    (ge,), (gt,) = ember.autograd.grad(ye.sum(), xe), torch.autograd.grad(yt.sum(), xt)
    got, want = ye.detach().numpy().astype(np.float64), yt.detach().numpy()
    mid, tail = x >= -3, (x < -3) & (x > -5.4)
    ulp = np.spacing(np.abs(want[mid]).astype(np.float32)).astype(np.float64)
    assert (np.abs(got[mid] - want[mid]) <= 8 * ulp).all()
    np.testing.assert_allclose(got[tail], want[tail], rtol=1e-5, atol=0)
    np.testing.assert_allclose(got[x <= -5.4], want[x <= -5.4], rtol=0, atol=1e-6)
    np.testing.assert_allclose(ge.numpy(), gt.numpy(), rtol=0, atol=2e-7)
