"""The vectorised float64 erfinv and special.ndtri (vec_erfinv.h) against mpmath (which comes with
torch's sympy) over their whole domains: both polynomial pieces and their seam, the tails up to
1 - 2^-53, ndtri's lower tail below 2^-53 (handed to the scalar form), contiguous and strided
inputs, float32 ndtri (in double), and the special values against PyTorch."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")
mp = pytest.importorskip("mpmath")
mp.mp.dps = 40


def ulps(got: np.ndarray, ref: list, digits: int = 53) -> np.ndarray:
    """|got - ref| in units of the spacing at ref (of float64, or float32 for digits=24; subnormal
    spacing below the normal range)."""
    tiny = -1074 if digits == 53 else -149
    out = np.empty(len(ref))
    for i, (g, r) in enumerate(zip(got, ref)):
        e = max(int(mp.floor(mp.log(abs(r), 2))) - digits + 1, tiny)
        out[i] = float(abs(mp.mpf(float(g)) - r) / mp.mpf(2) ** e)
    return out


def ndtri_ref(p: float) -> mp.mpf:
    """sqrt(2) erfinv(2p - 1); below 1e-12 from erfc(t) = 2p by Newton on the logs (mpmath's erfinv
    would need 2p - 1 to ~p's digits)."""
    if p > 1e-12:
        return mp.sqrt(2) * mp.erfinv(2 * mp.mpf(p) - 1)
    lq = mp.log(2 * mp.mpf(p))
    t = mp.findroot(lambda u: mp.log(mp.erfc(u)) - lq, mp.sqrt(-lq))
    return -mp.sqrt(2) * t


def erfinv_inputs() -> np.ndarray:
    rng = np.random.default_rng(0)
    w_seam = 6.25  # w = -log(1 - a^2): the pieces meet there
    a_seam = math.sqrt(-math.expm1(-w_seam))
    a = np.concatenate([rng.uniform(0, 1, 600), 1 - 2.0 ** -rng.uniform(1, 53, 400), 2.0 ** -rng.uniform(1, 60, 200),
                        a_seam + np.linspace(-1e-6, 1e-6, 41), [0.5, 1 - 2.0 ** -53, 2.0 ** -1074]])
    return np.concatenate([a, -a[::7]])


def test_erfinv_float64_within_3_ulps() -> None:
    x = erfinv_inputs()
    got = ember.erfinv(ember.tensor(x)).numpy()
    assert got.dtype == np.float64
    keep = x != 0
    err = ulps(got[keep], [mp.erfinv(mp.mpf(float(v))) for v in x[keep]])
    assert err.max() <= 3.0, (err.max(), x[keep][err.argmax()])


def test_ndtri_float64_within_4_ulps_tails_included() -> None:
    rng = np.random.default_rng(1)
    p = np.concatenate([rng.uniform(0, 1, 600), 2.0 ** -rng.uniform(1, 53, 300), 1 - 2.0 ** -rng.uniform(1, 53, 300),
                        2.0 ** -rng.uniform(53, 1074, 200), [2.0 ** -53, 0.25, 0.75, 1 - 2.0 ** -53]])
    p = p[p != 0.5]
    got = ember.special.ndtri(ember.tensor(p)).numpy()
    err = ulps(got, [ndtri_ref(float(v)) for v in p])
    assert err.max() <= 4.0, (err.max(), p[err.argmax()])
    # strided runs take the scalar body: the same values to within the two errors
    strided = ember.special.ndtri(ember.tensor(np.stack([p, p], 1))[:, 0]).numpy()
    np.testing.assert_allclose(strided, got, rtol=2e-15, atol=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_erfinv_strided_and_in_place_match_contiguous(dtype: type) -> None:
    # contiguous runs of 64 without tail inputs skip the tail's polynomial (erfinv_n): same values
    x = np.concatenate([erfinv_inputs(), np.random.default_rng(1).uniform(-1, 1, 5000)]).astype(dtype)
    want = ember.erfinv(ember.tensor(x)).numpy()
    t = ember.tensor(np.stack([x, x], 1))[:, 1]
    np.testing.assert_array_equal(ember.erfinv(t).numpy(), want)
    y = ember.tensor(x)
    y.erfinv_()
    np.testing.assert_array_equal(y.numpy(), want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_specials_match_torch(dtype: str) -> None:
    v = np.array([0.0, -0.0, 1.0, -1.0, 1.5, -1.5, math.nan, math.inf, -math.inf, 0.5, 1e-30, 5e-324 if dtype == "float64"
                  else 1e-45, 1 - 2.0 ** -24], dtype=dtype)
    for name in ("erfinv", "special.ndtri"):
        mod_e, mod_t = ember, torch
        for part in name.split("."):
            mod_e, mod_t = getattr(mod_e, part), getattr(mod_t, part)
        got, want = mod_e(ember.tensor(v)).numpy(), mod_t(torch.tensor(v)).numpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
        fin = np.isfinite(want)
        np.testing.assert_array_equal(got[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)], err_msg=name)
        np.testing.assert_array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0]), err_msg=name)
        np.testing.assert_allclose(got[fin], want[fin], rtol=4e-6 if dtype == "float32" else 1e-15, err_msg=name)


def test_ndtri_float32_rounds_the_double_result() -> None:
    """float32 runs in double: within an ulp of the exact value (PyTorch's float kernel is within a
    few ulps of it, so that is the comparison's tolerance)."""
    rng = np.random.default_rng(2)
    p = np.concatenate([rng.uniform(0, 1, 1500), 2.0 ** -rng.uniform(1, 149, 500)]).astype("float32")
    p = p[p != 0.5]
    got = ember.special.ndtri(ember.tensor(p)).numpy()
    assert got.dtype == np.float32
    err = ulps(got, [ndtri_ref(float(v)) for v in p], digits=24)
    assert err.max() <= 1.0, (err.max(), p[err.argmax()])
    np.testing.assert_allclose(got, torch.special.ndtri(torch.tensor(p)).numpy(), rtol=2e-6, atol=0)
