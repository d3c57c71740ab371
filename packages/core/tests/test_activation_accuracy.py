"""gelu (erf form), sigmoid, silu, glu and their derivatives in float32 against float64 references,
whichever kernel this CPU runs: the AVX-512 array forms of gelu_table.h and sigmoid_n.h for contiguous
arrays, the vectorised loops of the kernel bodies elsewhere (strided views, AVX2, the generic build).
gelu and its derivative: The bounds hold for both: gelu within 16 ulp plus an absolute 4e-8
(the table returns x * 0 under -6.18, the loop under -5.7; PyTorch's own float formula is 0 from
-5.45 and off by 1e-6 near -3), the derivative within 16 ulp plus 1e-7 |dy| (its terms cancel).
sigmoid within 3 ulp down to its subnormals; silu and its derivative as aten's formulas (x / (1 + e^-x):
-0 where e^-x overflows), within 4 ulp. The other kernels run in
subprocesses with EMBER_CPU_CAPABILITY capped, so the checks do not depend on the CPU running them."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402

run_capped = load("capped_kernels").run_capped

EPS = 2.0**-24


def _grid() -> np.ndarray:
    # a dense sweep and random points; 1000003 values so that the vector loop has a tail
    rng = np.random.default_rng(7)
    x = np.concatenate([np.linspace(-7.0, 7.0, 700001), rng.normal(0.0, 2.5, 300002)])
    return x.astype(np.float32)


def _e(a: np.ndarray) -> ember.Tensor:
    return ember.from_numpy(a)


def _bound(ref: torch.Tensor) -> torch.Tensor:
    return 16 * EPS * ref.abs() + 4e-8


def test_inproc_gelu_forward() -> None:
    x = _grid()
    ref = torch.nn.functional.gelu(torch.from_numpy(x).double())
    for got in (ember.nn.functional.gelu(_e(x)), ember.nn.functional.gelu(_e(np.repeat(x, 2))[::2])):
        err = (torch.from_numpy(got.numpy()).double() - ref).abs()
        assert bool((err <= _bound(ref)).all()), float((err / _bound(ref)).max())


def test_inproc_gelu_backward() -> None:
    x = _grid()
    dy = np.random.default_rng(8).uniform(0.5, 2.0, x.shape).astype(np.float32)
    xt, dyt = torch.from_numpy(x).double(), torch.from_numpy(dy).double()
    ref = torch.ops.aten.gelu_backward(dyt, xt)
    got = torch.from_numpy(ember._nn.gelu_backward(_e(dy), _e(x)).numpy()).double()
    err = (got - ref).abs()
    # the derivative's two terms cancel around its zero (-0.7518) and below -3: absolute there
    bound = 16 * EPS * ref.abs() + 1e-7 * dyt
    assert bool((err <= bound).all()), float((err / bound).max())


def test_inproc_gelu_edges() -> None:
    """Infinities, NaN, signed zeros and the table's edges, contiguous (the table) and strided (the
    loop): gelu(+inf) = inf, gelu(-inf) = NaN (-inf * 0), the derivative NaN at both infinities
    (x phi(x) = inf * 0) and nonzero down to -14 (an infinite gradient stays infinite)."""
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 100.0, -100.0, 5.8, 5.8125, 6.0, -6.18, -6.2, -10.0,
                  -14.0, 1e-40, -1e-40, 3e38, -3e38], dtype=np.float32)
    for xe in (_e(x), _e(np.repeat(x, 3))[::3]):
        y = ember.nn.functional.gelu(xe).numpy()
        assert y[0] == np.inf and np.isnan(y[1]) and np.isnan(y[2])
        assert y[3] == 0 and not np.signbit(y[3]) and y[4] == 0 and np.signbit(y[4])
        assert y[5] == 100.0 and y[6] == 0 and y[9] == 6.0 and y[16] == 3e38 and y[17] == 0
        assert y[14] == np.float32(5e-41) and y[15] == -np.float32(5e-41)
        g = ember._nn.gelu_backward(ember.full_like(xe, float("inf")), xe).numpy()
        assert np.isnan(g[0]) and np.isnan(g[1]) and np.isnan(g[2])
        assert (g[[3, 4, 5, 7, 8, 9]] == np.inf).all()
        assert (g[[10, 11, 12, 13]] == -np.inf).all()
        ones = ember._nn.gelu_backward(ember.ones_like(xe), xe).numpy()
        assert ones[5] == 1.0 and ones[9] == 1.0 and ones[3] == 0.5


def _ulps(got: ember.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """|got - ref| in units of float32's spacing at ref (the smallest subnormal's below them)."""
    r32 = ref.float().abs()
    ulp = (torch.nextafter(r32, torch.tensor(float("inf"))) - r32).double().clamp(min=2.0**-149)
    return (torch.from_numpy(got.numpy()).double() - ref).abs() / ulp


def test_inproc_sigmoid() -> None:
    x = np.concatenate([_grid() * 16, np.linspace(-110.0, 110.0, 200001, dtype=np.float32)])
    ref = torch.sigmoid(torch.from_numpy(x).double())
    for xe in (_e(x), _e(np.repeat(x, 2))[::2]):
        assert float(_ulps(ember.sigmoid(xe), ref).max()) <= 3
    y = ember.sigmoid(_e(np.array([np.inf, -np.inf, np.nan, -0.0, 17.0, -104.0, -103.0], dtype=np.float32))).numpy()
    assert y[0] == 1 and y[1] == 0 and np.isnan(y[2]) and y[3] == 0.5 and y[4] >= np.float32(1 - 2**-24)
    assert y[5] == 0 and y[6] > 0


def test_inproc_silu_and_glu() -> None:
    x = np.concatenate([_grid() * 12, np.linspace(-88.0, 88.0, 200001, dtype=np.float32)])
    xd = torch.from_numpy(x).double()
    # float32's e^-x overflows below -88.72: aten's x / inf = -0 there
    want = torch.nn.functional.silu(xd).where(xd > -88.72, -0.0)
    assert float(_ulps(ember.nn.functional.silu(_e(x)), want).max()) <= 4
    dy = np.full_like(x, 1.5)
    ref = torch.ops.aten.silu_backward(torch.from_numpy(dy).double(), xd)
    got = torch.from_numpy(ember._nn.silu_backward(_e(dy), _e(x)).numpy()).double()
    # 1 - s rounds to float32 before the product with x (aten's order), and 1 + x (1 - s) cancels near
    # x = -1.28: an absolute 2 |x| eps besides
    assert bool(((got - ref).abs() <= 8 * EPS * ref.abs() + 1.5 * 2 * EPS * (1 + xd.abs())).all())
    y = ember.nn.functional.silu(_e(np.array([np.inf, -np.inf, np.nan, -100.0, -0.0], dtype=np.float32))).numpy()
    assert y[0] == np.inf and np.isnan(y[1]) and np.isnan(y[2]) and y[3] == 0 and np.signbit(y[3])
    # (sigmoid of the second half held above -87: its subnormals have too few bits for an ulp bound)
    h = len(x) // 2
    both = np.stack([x[:h], np.maximum(x[h : 2 * h], np.float32(-87.0))])
    ref = torch.nn.functional.glu(torch.from_numpy(both).double(), dim=0)
    assert float(_ulps(ember.nn.functional.glu(_e(both), dim=0), ref).max()) <= 4


@pytest.mark.parametrize("cap", ["default", "avx2", "avx512"])
def test_capped_kernels(cap: str) -> None:
    """The same checks on the narrower kernels (a no-op cap where the CPU lacks the wider ones)."""
    run_capped(__file__, cap, "inproc")
