"""F.grid_sample / ember.grid_sampler(_2d/_3d) against PyTorch: every mode, padding mode and
align_corners, 4-d and 5-d, forward values and the input / grid gradients on the same inputs,
dtypes, out-of-range and non-finite grid points, and the errors."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from _nn_testutil import same_error

torch = pytest.importorskip("torch")

MODES = ["bilinear", "nearest", "bicubic"]
PADS = ["zeros", "border", "reflection"]


def _pair(shape_x: tuple, shape_g: tuple, dtype: str = "float64", seed: int = 0, spread: float = 1.3) -> tuple:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape_x)
    g = rng.uniform(-spread, spread, shape_g)
    return x.astype(dtype), g.astype(dtype)


def _run(lib, x: np.ndarray, g: np.ndarray, grad: bool, **kw):
    xt = lib.tensor(x, requires_grad=grad)
    gt = lib.tensor(g, requires_grad=grad)
    y = lib.nn.functional.grid_sample(xt, gt, **kw)
    if not grad:
        return y.detach().numpy(), None, None
    w = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)).astype(x.dtype))
    (y * w).sum().backward()
    return y.detach().numpy(), xt.grad.numpy(), gt.grad.numpy()


def _close(a: np.ndarray, b: np.ndarray, tol: float) -> None:
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("padding_mode", PADS)
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_2d(mode: str, padding_mode: str, align_corners: bool) -> None:
    x, g = _pair((2, 3, 5, 7), (2, 4, 6, 2), seed=1)
    kw = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    want = _run(torch, x, g, True, **kw)
    got = _run(ember, x, g, True, **kw)
    for a, b in zip(got, want):
        _close(a, b, 1e-10)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", PADS)
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_3d(mode: str, padding_mode: str, align_corners: bool) -> None:
    x, g = _pair((2, 2, 3, 4, 5), (2, 2, 3, 4, 3), seed=2)
    kw = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    want = _run(torch, x, g, True, **kw)
    got = _run(ember, x, g, True, **kw)
    for a, b in zip(got, want):
        _close(a, b, 1e-10)


@pytest.mark.parametrize(("dims", "mode"), [(d, m) for d in (2, 3) for m in MODES if d == 2 or m != "bicubic"])
@pytest.mark.parametrize("padding_mode", PADS)
def test_grid_sample_float32_values(dims: int, mode: str, padding_mode: str) -> None:
    """float32 forward as PyTorch computes it (same rounding of the coordinate maps; bicubic is 4-d only)."""
    shape_x, shape_g = ((1, 4, 9, 11), (1, 8, 7, 2)) if dims == 2 else ((1, 2, 5, 6, 7), (1, 3, 4, 5, 3))
    x, g = _pair(shape_x, shape_g, "float32", seed=3, spread=2.5)
    for ac in (False, True):
        kw = {"mode": mode, "padding_mode": padding_mode, "align_corners": ac}
        want = _run(torch, x, g, True, **kw)
        got = _run(ember, x, g, True, **kw)
        _close(got[0], want[0], 1e-6)
        _close(got[1], want[1], 1e-5)
        _close(got[2], want[2], 1e-4)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_grid_sample_half(dtype: str) -> None:
    x, g = _pair((1, 2, 6, 6), (1, 5, 5, 2), "float32", seed=4)
    tx, tg = torch.tensor(x).to(getattr(torch, dtype)), torch.tensor(g).to(getattr(torch, dtype))
    ex, eg = ember.tensor(x).to(getattr(ember, dtype)), ember.tensor(g).to(getattr(ember, dtype))
    want = torch.nn.functional.grid_sample(tx, tg, align_corners=False)
    got = ember.nn.functional.grid_sample(ex, eg, align_corners=False)
    assert str(got.dtype) == str(want.dtype)
    _close(got.float().numpy(), want.float().numpy(), 5e-2)


@pytest.mark.parametrize("padding_mode", PADS)
@pytest.mark.parametrize("mode", MODES)
def test_grid_sample_non_finite_grid(mode: str, padding_mode: str) -> None:
    nan, inf = float("nan"), float("inf")
    x, _ = _pair((1, 2, 3, 4), (1, 1, 1, 2), "float32", seed=5)
    g = np.array([[[[nan, 0.0], [inf, 0.3], [-inf, 0.2], [1e30, -1e30], [0.5, nan]]]], dtype=np.float32)
    kw = {"mode": mode, "padding_mode": padding_mode, "align_corners": False}
    _close(_run(ember, x, g, False, **kw)[0], _run(torch, x, g, False, **kw)[0], 1e-6)


def test_grid_sampler_ops_and_constants() -> None:
    x, g = _pair((1, 2, 4, 4), (1, 3, 3, 2), seed=6)
    for m in range(3):
        for p in range(3):
            want = torch.grid_sampler(torch.tensor(x), torch.tensor(g), m, p, True)
            _close(ember.grid_sampler(ember.tensor(x), ember.tensor(g), m, p, True).numpy(), want.numpy(), 1e-12)
            want = torch.grid_sampler_2d(torch.tensor(x), torch.tensor(g), m, p, False)
            _close(ember.grid_sampler_2d(ember.tensor(x), ember.tensor(g), m, p, False).numpy(), want.numpy(), 1e-12)
    x3, g3 = _pair((1, 2, 3, 4, 4), (1, 2, 3, 3, 3), seed=7)
    want = torch.grid_sampler_3d(torch.tensor(x3), torch.tensor(g3), 0, 2, False)
    _close(ember.grid_sampler_3d(ember.tensor(x3), ember.tensor(g3), 0, 2, False).numpy(), want.numpy(), 1e-12)
    F, TF = ember.nn.functional, torch.nn.functional
    assert F.GRID_SAMPLE_INTERPOLATION_MODES == TF.GRID_SAMPLE_INTERPOLATION_MODES
    assert F.GRID_SAMPLE_PADDING_MODES == TF.GRID_SAMPLE_PADDING_MODES


def test_grid_sample_grad_fn_and_strides() -> None:
    x, g = _pair((2, 3, 5, 5), (2, 4, 4, 2), seed=8)
    xt = ember.tensor(x, requires_grad=True)
    y = ember.nn.functional.grid_sample(xt, ember.tensor(g), align_corners=True)
    assert type(y.grad_fn).__name__ == "GridSampler2DBackward0"
    # non-contiguous input and grid
    xs = np.ascontiguousarray(x.transpose(0, 1, 3, 2))
    gs = np.ascontiguousarray(g.transpose(0, 2, 1, 3))
    want = torch.nn.functional.grid_sample(torch.tensor(xs).transpose(2, 3), torch.tensor(gs).transpose(1, 2),
                                           align_corners=True)
    got = ember.nn.functional.grid_sample(ember.tensor(xs).transpose(2, 3), ember.tensor(gs).transpose(1, 2),
                                          align_corners=True)
    _close(got.numpy(), want.numpy(), 1e-12)


def test_grid_sample_empty() -> None:
    for xs, gs in [((0, 2, 3, 3), (0, 2, 2, 2)), ((1, 2, 3, 3), (1, 0, 2, 2)), ((1, 0, 3, 3), (1, 3, 2, 2))]:
        kw = {"align_corners": False}
        a = ember.nn.functional.grid_sample(ember.zeros(xs), ember.zeros(gs), **kw)
        b = torch.nn.functional.grid_sample(torch.zeros(xs), torch.zeros(gs), **kw)
        assert tuple(a.shape) == tuple(b.shape)



@pytest.mark.parametrize("case", [
    ((2, 3, 3), (1, 2, 2, 2), {}),
    ((1, 2, 3, 3), (1, 2, 2, 1), {}),
    ((1, 2, 3, 3), (2, 2, 2, 2), {}),
    ((1, 2, 3, 3), (1, 1, 2, 2, 2), {}),
    ((1, 2, 0, 3), (1, 2, 2, 2), {}),
    ((1, 2, 3, 3, 3), (1, 1, 2, 2, 3), {"mode": "bicubic"}),
    ((1, 2, 3, 3), (1, 2, 2, 2), {"mode": "linear"}),
    ((1, 2, 3, 3), (1, 2, 2, 2), {"padding_mode": "circular"}),
])
def test_grid_sample_errors(case: tuple) -> None:
    xs, gs, kw = case
    same_error(lambda: ember.nn.functional.grid_sample(ember.zeros(xs), ember.zeros(gs), align_corners=False, **kw),
            lambda: torch.nn.functional.grid_sample(torch.zeros(xs), torch.zeros(gs), align_corners=False, **kw))


def test_grid_sample_dtype_errors() -> None:
    same_error(lambda: ember.grid_sampler_2d(ember.zeros(1, 1, 2, 2), ember.zeros(1, 1, 1, 2, dtype=ember.float64),
                                          0, 0, False),
            lambda: torch.grid_sampler_2d(torch.zeros(1, 1, 2, 2), torch.zeros(1, 1, 1, 2, dtype=torch.float64),
                                          0, 0, False))
    same_error(lambda: ember.grid_sampler_2d(ember.zeros(1, 1, 2, 2, dtype=ember.int64),
                                          ember.zeros(1, 1, 1, 2, dtype=ember.int64), 0, 0, False),
            lambda: torch.grid_sampler_2d(torch.zeros(1, 1, 2, 2, dtype=torch.int64),
                                          torch.zeros(1, 1, 1, 2, dtype=torch.int64), 0, 0, False))


def test_grid_sample_align_corners_warning() -> None:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ember.nn.functional.grid_sample(ember.zeros(1, 1, 2, 2), ember.zeros(1, 1, 1, 2))
    assert any("align_corners=False" in str(x.message) for x in w)
