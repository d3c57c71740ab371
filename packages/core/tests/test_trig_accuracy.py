"""float32 sin and cos against float64, whichever kernel this CPU runs: the AVX-512 array form of
sin_cos_n.h (float reduction, |x| <= 2^13) for contiguous arrays, with vectors holding larger,
infinite or NaN arguments handed to vec::sin_n / cos_n, and those loops outright elsewhere. Within 2
ulp everywhere (the float form: 1.52 at worst over every third float up to 2^13). The other kernels
run in subprocesses with EMBER_CPU_CAPABILITY capped."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402

run_capped = load("capped_kernels").run_capped


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(3)
    near = (np.arange(-3000, 3000) * (np.pi / 2)).astype(np.float32)  # next to multiples of pi / 2
    x = np.concatenate([rng.uniform(-10, 10, 200000), rng.uniform(-8192, 8192, 200000), near,
                        np.nextafter(near, np.float32(np.inf)), np.geomspace(1e-30, 1e3, 5000)])
    # a few lanes past 2^13, an infinity and a NaN scattered among ordinary ones
    x = x.astype(np.float32)
    x[1000:1003] = [1e5, 3e38, -9000.5]
    x[2017], x[3333], x[4444] = np.inf, np.nan, -0.0
    return x


def _ulps(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    r32 = np.abs(ref).astype(np.float32)
    ulp = (np.nextafter(r32, np.float32(np.inf)) - r32).astype(np.float64)
    return np.abs(got.astype(np.float64) - ref) / np.maximum(ulp, 2.0**-149)


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_inproc_sin_cos(op: str) -> None:
    x = _inputs()
    ref = getattr(np, op)(x.astype(np.float64))
    for xe in (ember.from_numpy(x), ember.from_numpy(np.repeat(x, 2))[::2]):  # the array form, the strided loop
        got = getattr(ember, op)(xe).numpy()
        finite = np.isfinite(x)
        assert _ulps(got[finite], ref[finite]).max() <= 2
        assert np.isnan(got[~finite]).all()
    if op == "sin":
        assert np.signbit(ember.sin(ember.from_numpy(x)).numpy()[4444])


@pytest.mark.parametrize("cap", ["default", "avx2", "avx512"])
def test_capped_kernels(cap: str) -> None:
    run_capped(__file__, cap, "inproc")
