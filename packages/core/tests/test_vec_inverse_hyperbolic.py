"""The vectorised inverse-trigonometric and hyperbolic kernels (vec_inverse_trig.h, vec_hyperbolic.h)
over their whole domains: each branch of each function, the overflow edges, and the special values
(NaN, +-inf, +-0, subnormals, the domain's ends) in kind and sign, against the C library and PyTorch.

tests/cpp/vec_math_check.cpp measures the ulp errors against a higher-precision reference; here a
result may differ from the reference's (itself within about 2 ulps) by the two errors together."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

OPS = ["atan", "asin", "acos", "sinh", "cosh", "asinh", "acosh", "atanh"]
ULP = {"float32": 2.0 ** -23, "float64": 2.0 ** -52}


def inputs(op: str, dtype: str) -> np.ndarray:
    """Dense samples of each branch (both signs), the transitions and the ends of the domain."""
    big = 1e300 if dtype == "float64" else 1e30
    tiny = 1e-310 if dtype == "float64" else 1e-40  # subnormal
    over = 712.0 if dtype == "float64" else 90.0  # where sinh / cosh overflow
    unit = np.concatenate([np.linspace(-1, 1, 4001), np.linspace(0.49, 0.51, 501), np.linspace(0.97, 1, 301)])
    wide = np.concatenate([np.geomspace(1e-30, big, 3001), np.linspace(-12, 12, 2401), [0.5, 1.0, 2.0, 0.0]])
    dom = {"asin": unit, "acos": unit, "atanh": unit,
           "acosh": np.concatenate([1 + np.geomspace(1e-15, 4, 2001), np.geomspace(1, big, 2001)]),
           "sinh": np.concatenate([np.linspace(-over, over, 4001), np.geomspace(1e-30, 3, 2001)]),
           "cosh": np.concatenate([np.linspace(-over, over, 4001), np.geomspace(1e-30, 3, 2001)])}.get(op, wide)
    x = np.concatenate([dom, -dom]) if op not in ("acosh",) else dom
    specials = [math.nan, math.inf, -math.inf, 0.0, -0.0, tiny, -tiny, 1.0, -1.0, 1.5, -1.5, big, -big]
    return np.concatenate([x, specials]).astype(dtype)


def same_specials(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """NaN where want has NaN, the same infinities, zeros of the same sign."""
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{what}: NaN")
    inf = np.isinf(want) | np.isinf(got)
    np.testing.assert_array_equal(got[inf], want[inf], err_msg=f"{what}: infinities")
    zero = want == 0
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]), err_msg=f"{what}: sign of zero")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", OPS)
def test_whole_domain(op: str, dtype: str) -> None:
    """Within 3 ulps of the C library's result (numpy's; relative, subnormal results absolutely) and
    its NaN / infinity / signed-zero pattern. (PyTorch's own sinh / cosh overflow to inf from
    709.78 on, where e^x does, though the results stay finite up to 710.48.)"""
    x = inputs(op, dtype)
    got = getattr(ember, op)(ember.tensor(x)).numpy()
    with np.errstate(all="ignore"):
        want = getattr(np, {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
                            "acosh": "arccosh", "atanh": "arctanh"}.get(op, op))(x)
    assert got.dtype == want.dtype
    same_specials(got, want, f"{op} {dtype}")
    fin = np.isfinite(want)
    g, w = got[fin].astype(np.float64), want[fin].astype(np.float64)
    tol = 3 * ULP[dtype] * np.maximum(np.abs(w), np.finfo(dtype).tiny)
    bad = np.abs(g - w) > tol
    assert not bad.any(), f"{op} {dtype}: at x = {x[fin][bad][:5]} got {g[bad][:5]}, libm {w[bad][:5]}"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", OPS)
def test_special_values_match_torch(op: str, dtype: str) -> None:
    tiny = np.finfo(dtype).smallest_subnormal
    x = np.array([math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, tiny, -tiny, 1.0, -1.0, 1.5, -1.5, 0.5, -0.5,
                  np.finfo(dtype).max, -np.finfo(dtype).max, 1e-30, -1e-30, 20.0, -20.0], dtype=dtype)
    got = getattr(ember, op)(ember.tensor(x)).numpy()
    want = getattr(torch, op)(torch.tensor(x)).numpy()
    same_specials(got, want, f"{op} {dtype}")
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=3 * ULP[dtype], atol=0)


@pytest.mark.parametrize("op", OPS)
def test_half_types_and_strides(op: str) -> None:
    """bfloat16 / float16 compute in float and round once; a strided view takes the strided loop."""
    x = np.linspace(-0.9 if op != "acosh" else 1.0, 0.9 if op != "acosh" else 9.0, 64, dtype=np.float32)
    for dt in ("bfloat16", "float16"):
        got = getattr(ember, op)(ember.tensor(x).to(getattr(ember, dt))).float().numpy()
        want = getattr(torch, op)(torch.tensor(x).to(getattr(torch, dt))).float().numpy()
        np.testing.assert_array_equal(got, want)
    m = np.stack([x, x[::-1]])
    got = getattr(ember, op)(ember.tensor(m).t()).numpy()
    want = getattr(torch, op)(torch.tensor(m).t()).numpy()
    np.testing.assert_allclose(got, want, rtol=3 * ULP["float32"])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_atan2(dtype: str) -> None:
    """Every quadrant and octant, magnitudes far apart, and every pair of special values."""
    rng = np.random.default_rng(0)
    mags = np.concatenate([rng.uniform(-10, 10, 20000), np.geomspace(1e-30, 1e30, 2000), -np.geomspace(1e-30, 1e30, 2000)])
    y, x = mags.astype(dtype), rng.permutation(mags).astype(dtype)
    got = ember.atan2(ember.tensor(y), ember.tensor(x)).numpy()
    want = np.arctan2(y, x)
    bad = np.abs(got.astype(np.float64) - want) > 3 * ULP[dtype] * np.maximum(np.abs(want), np.finfo(dtype).tiny)
    assert not bad.any(), f"atan2 at y = {y[bad][:5]}, x = {x[bad][:5]}: {got[bad][:5]} vs {want[bad][:5]}"
    sp = np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, np.finfo(dtype).smallest_subnormal,
                   np.finfo(dtype).max, -3.0], dtype=dtype)
    ys, xs = np.repeat(sp, len(sp)), np.tile(sp, len(sp))
    got = ember.atan2(ember.tensor(ys), ember.tensor(xs)).numpy()
    want = torch.atan2(torch.tensor(ys), torch.tensor(xs)).numpy()
    same_specials(got, want, f"atan2 {dtype}")
    np.testing.assert_allclose(got, want, rtol=3 * ULP[dtype], atol=0)
