"""torch.special's Bessel J, Y and I (special_bessel.h, special_bessel_n.h) against mpmath (which
comes with torch's sympy): the power series, Hankel's expansion and their seam at 12.5, I's series
up to 30 and its asymptotic form past it; the vectorised contiguous form against the scalar
(strided) one, blocks that mix the series, the expansion and the scalar edge values included."""

from __future__ import annotations

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")
mp = pytest.importorskip("mpmath")
mp.mp.dps = 40

REF = {
    "bessel_j0": lambda x: mp.besselj(0, x),
    "bessel_j1": lambda x: mp.besselj(1, x),
    "bessel_y0": lambda x: mp.bessely(0, x),
    "bessel_y1": lambda x: mp.bessely(1, x),
    "i0": lambda x: mp.besseli(0, x),
    "i1": lambda x: mp.besseli(1, x),
    "i0e": lambda x: mp.besseli(0, x) * mp.exp(-abs(x)),
    "i1e": lambda x: mp.besseli(1, x) * mp.exp(-abs(x)),
}
JY = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")
EDGES = [0.0, -0.0, float("nan"), float("inf"), -float("inf"), 1e-300, 5e-324, 12.5, -12.5, 2.0**26, 2.0**27, -1e300]


def wide_inputs(name: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    top = 60.0 if name in JY else 40.0
    x = np.concatenate([rng.uniform(-top, top, 700), 12.5 + np.linspace(-1e-3, 1e-3, 21), 30 + np.linspace(-1e-3, 1e-3, 21),
                        2.0 ** -rng.uniform(1, 40, 50), rng.uniform(1e3, 1e7, 30)])
    return np.abs(x) if name.startswith("bessel_y") else x


@pytest.mark.parametrize("name", sorted(REF))
def test_against_mpmath(name: str) -> None:
    x = wide_inputs(name)
    got = getattr(ember.special, name)(ember.tensor(x)).numpy()
    ref = np.array([float(REF[name](mp.mpf(float(v)))) for v in x])
    if name in JY:  # oscillating: absolute error, scaled by the envelope sqrt(2 / (pi x)) past 1
        err = np.abs(got - ref) / np.minimum(1.0, np.sqrt(2 / (np.pi * np.maximum(np.abs(x), 1e-300))))
        # the series lose up to ~1e-11 of it to cancellation just below 12.5 (PyTorch: 1e-6)
        bad = ~(err <= 1.5e-11) & ~(np.abs(got - ref) <= 1e-14 * np.abs(ref))  # Y near 0: relative
    else:
        with np.errstate(invalid="ignore"):  # inf - inf
            err = np.abs(got - ref) / np.abs(ref)
        bad = ~(err <= 4e-15) & ~((got == ref) & np.isinf(ref))  # I past e^709: inf
    assert not bad.any(), (x[bad][:5], got[bad][:5], ref[bad][:5])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(REF))
def test_contiguous_matches_strided(name: str, dtype: str) -> None:
    """The array form (vector loops by blocks) against the element-by-element kernel of a strided
    view: equal but for the last bits of Hankel's sine and cosine (vec:: against std::)."""
    x = np.concatenate([wide_inputs(name), EDGES, -wide_inputs(name)[:300]])
    np.random.default_rng(1).shuffle(x)
    f = getattr(ember.special, name)
    a = ember.tensor(x, dtype=getattr(ember, dtype))
    wide = ember.empty(len(x), 2, dtype=a.dtype)
    wide[:, 0] = a
    strided = f(wide[:, 0]).numpy()
    contig = f(a).numpy()
    assert a.is_contiguous() and not wide[:, 0].is_contiguous()
    np.testing.assert_allclose(contig, strided, rtol=1e-13 if dtype == "float64" else 1e-6, atol=0)
    np.testing.assert_array_equal(np.isnan(contig), np.isnan(strided))
    # PyTorch's own values, at its precision (~1e-6 absolute for J and Y; its float32 J and Y lose the
    # phase past ~1e3, its i1 of the smallest subnormal rounds up)
    keep = np.abs(x) < 1e3 if dtype == "float32" else np.ones(len(x), bool)
    want = getattr(torch.special, name)(torch.tensor(x[keep], dtype=getattr(torch, dtype))).numpy()
    np.testing.assert_allclose(contig[keep], want, rtol=1e-5, atol=2e-6 if name in JY else 1e-320)


@pytest.mark.parametrize("name", ["bessel_y0", "bessel_y1"])
def test_y_domain_in_vector_blocks(name: str) -> None:
    """Y below 0 is NaN and at +-0 is -inf, inside blocks the vector loop takes."""
    x = np.linspace(-3, 3, 1001)
    x[500] = 0.0
    x[501] = -0.0
    got = getattr(ember.special, name)(ember.tensor(x)).numpy()
    assert np.isnan(got[x < 0]).all()
    assert got[500] == -np.inf and got[501] == -np.inf
    assert np.isfinite(got[x > 0]).all()
