"""Convolutions and pooling on a GPU (issue 24): conv1d / 2d / 3d with stride, padding, dilation
and groups, conv_transpose2d, max / avg / adaptive pooling and max unpooling, upsampling and
grid_sample, forward and backward (input, weight, bias and grid gradients), compared with the same
calls on the CPU. Run by the GPU script
(tools/gpu_check.sh, which puts ember-nn on the path) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")



@pytest.fixture(autouse=True)
def float32_products() -> Any:
    """Convolutions' float32 products in float32 (PyTorch's default lets them use TF32, as ember's
    ember.backends.cudnn.allow_tf32 does: test_conv_tf32_flag covers it)."""
    ember.backends.cudnn.allow_tf32 = False
    yield
    ember.backends.cudnn.allow_tf32 = True


# cuBLAS and the CPU's BLAS sum the products in different orders
TOL = {ember.float32: 1e-4, ember.float64: 1e-11, ember.float16: 2e-3, ember.bfloat16: 1e-2}


def check(got: ember.Tensor, want: ember.Tensor, tol: float | None = None) -> None:
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    g, w = got.cpu().double(), want.double()
    t = TOL.get(want.dtype, 0.0) if tol is None else tol
    assert bool((((g - w).abs() <= t * (1 + w.abs())) | (g == w) | (g.isnan() & w.isnan())).all()), (g - w).abs().max()


def run_both(fn: Callable[..., Any], args: list[Any], grads: list[bool], seed: int = 0,
             tol: float | None = None) -> tuple[Any, Any]:
    """fn(*args) on the CPU and on the GPU (a tensor, or a tuple whose first is differentiated);
    compares every result and the gradients of the args marked in grads (max pooling's backward
    adds overlapping windows' terms atomically on the GPU: tol 0 only without it)."""
    def prep(a: Any, g: bool, cuda: bool) -> Any:
        if not isinstance(a, ember.Tensor):
            return a
        t = a.cuda() if cuda else a.clone()
        return t.requires_grad_() if g else t

    cpu = [prep(a, g, False) for a, g in zip(args, grads)]
    gpu = [prep(a, g, True) for a, g in zip(args, grads)]
    rc, rd = fn(*cpu), fn(*gpu)
    outs_c = rc if isinstance(rc, tuple) else (rc,)
    outs_d = rd if isinstance(rd, tuple) else (rd,)
    for c, d in zip(outs_c, outs_d):
        check(d, c, tol)
    if any(grads):
        yc, yd = outs_c[0], outs_d[0]
        w = ember.randn(yc.shape, generator=ember.Generator().manual_seed(seed)).to(yc.dtype)
        yc.backward(w)
        yd.backward(w.cuda())
        for c, d, g in zip(cpu, gpu, grads):
            if g:
                assert c.grad is not None and d.grad is not None
                check(d.grad, c.grad, tol)
    return rc, rd


def randn(*shape: int, seed: int = 1, dtype: ember.dtype = ember.float32) -> ember.Tensor:
    return ember.randn(*shape, generator=ember.Generator().manual_seed(seed)).to(dtype)


CONV2D = {
    "plain": {},
    "stride-pad": {"stride": 2, "padding": 1},
    "dilation": {"dilation": 2, "padding": 2},
    "groups": {"groups": 2, "stride": (1, 2)},
    "depthwise": {"groups": 4, "padding": 1},
    "asym": {"stride": (2, 1), "padding": (0, 2), "dilation": (1, 3)},
    "same": {"padding": "same", "dilation": 2},
}


@pytest.mark.parametrize("case", list(CONV2D))
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16], ids=str)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d(case: str, dtype: ember.dtype, bias: bool) -> None:
    F = pytest.importorskip("ember.nn.functional")
    kw = CONV2D[case]
    groups = kw.get("groups", 1)
    x = randn(2, 4, 9, 11, dtype=dtype)
    w = randn(6 if groups != 4 else 8, 4 // groups, 3, 3, seed=2, dtype=dtype)
    b = randn(w.shape[0], seed=3, dtype=dtype) if bias else None
    run_both(lambda x, w, b: F.conv2d(x, w, b, **kw), [x, w, b], [True, True, bias])


def test_conv2d_pointwise_kernel_and_noncontiguous_input() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(3, 5, 7, 6)
    run_both(lambda x, w, b: F.conv2d(x, w, b), [x, randn(4, 5, 1, 1, seed=2), randn(4, seed=3)], [True, True, True])
    xt = randn(3, 7, 5, 6).transpose(1, 2)
    run_both(lambda x, w: F.conv2d(x, w, padding=1), [xt, randn(2, 5, 3, 3, seed=2)], [True, True])


@pytest.mark.parametrize("kw", [{}, {"stride": 3, "padding": 2}, {"dilation": 3, "groups": 3}], ids=str)
def test_conv1d(kw: dict[str, Any]) -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(4, 6, 40)
    w = randn(9, 6 // kw.get("groups", 1), 5, seed=2)
    run_both(lambda x, w, b: F.conv1d(x, w, b, **kw), [x, w, randn(9, seed=3)], [True, True, True])


@pytest.mark.parametrize("kw", [{}, {"stride": (1, 2, 2), "padding": 1}, {"dilation": 2, "groups": 2}], ids=str)
def test_conv3d(kw: dict[str, Any]) -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(2, 4, 7, 8, 9)
    w = randn(6, 4 // kw.get("groups", 1), 3, 2, 3, seed=2)
    run_both(lambda x, w, b: F.conv3d(x, w, b, **kw), [x, w, randn(6, seed=3)], [True, True, True])


@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1, "output_padding": 1},
                                {"stride": (2, 3), "dilation": 2, "groups": 2}], ids=str)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
def test_conv_transpose2d(kw: dict[str, Any], dtype: ember.dtype) -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(2, 4, 6, 5, dtype=dtype)
    w = randn(4, 3, 3, 3, seed=2, dtype=dtype)  # (in, out / groups, k...)
    run_both(lambda x, w, b: F.conv_transpose2d(x, w, b, **kw), [x, w, randn(3 * kw.get("groups", 1), seed=3,
                                                                              dtype=dtype)], [True, True, True])


def test_conv_larger_and_module() -> None:
    nn = pytest.importorskip("ember.nn")
    F = pytest.importorskip("ember.nn.functional")
    x = randn(8, 16, 32, 32)
    run_both(lambda x, w, b: F.conv2d(x, w, b, padding=1), [x, randn(32, 16, 3, 3, seed=2), randn(32, seed=3)],
             [True, True, True])
    m = nn.Conv2d(3, 5, 3, padding=1)
    md = nn.Conv2d(3, 5, 3, padding=1).cuda()
    md.load_state_dict({k: v.cuda() for k, v in m.state_dict().items()})
    xi = randn(2, 3, 10, 10)
    check(md(xi.cuda()), m(xi))


def test_integer_conv_raises_on_the_device() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = ember.ones(1, 2, 5, 5, dtype=ember.int64).cuda()
    with pytest.raises((RuntimeError, NotImplementedError), match="not implemented for 'Long'"):
        F.conv2d(x, ember.ones(3, 2, 3, 3, dtype=ember.int64).cuda())


# ---------------------------------------------------------------- pooling

MAXPOOL = {
    "k2": {"kernel_size": 2},
    "k3s2p1": {"kernel_size": 3, "stride": 2, "padding": 1},
    "ceil": {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    "dilation": {"kernel_size": (2, 3), "stride": 1, "dilation": 2, "padding": (1, 1)},
}


@pytest.mark.parametrize("case", list(MAXPOOL))
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16], ids=str)
def test_max_pool2d_with_indices_and_backward(case: str, dtype: ember.dtype) -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(2, 3, 9, 10, dtype=dtype)
    run_both(lambda x: F.max_pool2d(x, return_indices=True, **MAXPOOL[case]), [x], [True])


def test_max_pool_nan_integers_1d_3d_and_adaptive() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(2, 2, 6, 6)
    x[0, 1, 2, 3] = float("nan")
    run_both(lambda x: F.max_pool2d(x, 2, return_indices=True), [x], [False], tol=0.0)
    xi = ember.randint(-50, 50, (2, 3, 8, 8), generator=ember.Generator().manual_seed(2))
    run_both(lambda x: F.max_pool2d(x, 3, 2, return_indices=True), [xi], [False], tol=0.0)
    run_both(lambda x: F.max_pool1d(x, 3, 2, 1, return_indices=True), [randn(2, 3, 17)], [True])
    run_both(lambda x: F.max_pool3d(x, 2, return_indices=True), [randn(2, 2, 4, 6, 5)], [True])
    run_both(lambda x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True), [randn(2, 3, 7, 10)], [True])
    xt = randn(2, 8, 3, 8).transpose(1, 2)  # not contiguous
    run_both(lambda x: F.max_pool2d(x, 2, return_indices=True), [xt], [True])


def test_max_unpool2d_round_trip() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(2, 3, 8, 8)
    y, i = F.max_pool2d(x, 2, return_indices=True)
    yd, idd = F.max_pool2d(x.cuda(), 2, return_indices=True)
    run_both(lambda y, i: F.max_unpool2d(y, i, 2), [y, i], [False, False], tol=0.0)
    check(F.max_unpool2d(yd, idd, 2), F.max_unpool2d(y, i, 2), tol=0.0)
    with pytest.raises(RuntimeError, match="Found an invalid max index"):
        F.max_unpool2d(yd, idd * 100, 2)


AVGPOOL = {
    "k2": {"kernel_size": 2},
    "k3s2p1": {"kernel_size": 3, "stride": 2, "padding": 1},
    "no-pad-count": {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    "ceil": {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    "ceil-pad": {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    "divisor": {"kernel_size": (2, 3), "stride": (1, 2), "divisor_override": 5},
}


@pytest.mark.parametrize("case", list(AVGPOOL))
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16], ids=str)
def test_avg_pool2d_and_backward(case: str, dtype: ember.dtype) -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(2, 3, 9, 10, dtype=dtype)
    # each output's window is summed in the CPU's order: the same roundings
    run_both(lambda x: F.avg_pool2d(x, **AVGPOOL[case]), [x], [True], tol=1e-6 if dtype == ember.float64 else 1e-5)


def test_avg_pool_int64_1d_3d_and_noncontiguous() -> None:
    F = pytest.importorskip("ember.nn.functional")
    xi = ember.randint(-50, 50, (2, 3, 8, 8), generator=ember.Generator().manual_seed(2))
    run_both(lambda x: F.avg_pool2d(x, 3, 2, 1), [xi], [False], tol=0.0)
    run_both(lambda x: F.avg_pool1d(x, 4, 3, 2), [randn(2, 3, 20)], [True])
    run_both(lambda x: F.avg_pool3d(x, 2, 2, 1), [randn(2, 2, 5, 6, 7)], [True])
    xt = randn(2, 9, 3, 10).transpose(1, 2)
    run_both(lambda x: F.avg_pool2d(x, 3, 2), [xt], [True])


@pytest.mark.parametrize("size", [(1, 1), (3, 4), (5, 5), (9, 10), (7, 3)], ids=str)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16], ids=str)
def test_adaptive_avg_pool2d_and_backward(size: tuple[int, int], dtype: ember.dtype) -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(2, 3, 9, 10, dtype=dtype)
    run_both(lambda x: F.adaptive_avg_pool2d(x, size), [x], [True])


def test_adaptive_avg_pool3d_and_larger_pooling() -> None:
    F = pytest.importorskip("ember.nn.functional")
    run_both(lambda x: F.adaptive_avg_pool3d(x, (2, 3, 4)), [randn(2, 2, 5, 7, 9)], [True])
    x = randn(16, 32, 64, 64)
    run_both(lambda x: F.max_pool2d(x, 3, 2, 1), [x], [True])
    run_both(lambda x: F.avg_pool2d(x, 3, 2, 1), [x], [True])


def test_pooling_windows_past_the_launch_parameters() -> None:
    # up to 96 windows (and 128 coverage values) travel in the launch's parameters; more are uploaded
    F = pytest.importorskip("ember.nn.functional")
    wide = randn(2, 3, 5, 250)  # 1 + 2 + 125 windows
    run_both(lambda x: F.max_pool2d(x, 2, return_indices=True), [wide], [True])
    run_both(lambda x: F.avg_pool2d(x, 2), [wide], [True])
    run_both(lambda x: F.adaptive_max_pool1d(x, 97, return_indices=True), [randn(2, 3, 200)], [True])
    few = randn(2, 3, 6, 40)  # 1 + 3 + 20 windows inline; coverage 2 * (1 + 6 + 40) values uploaded
    run_both(lambda x: F.avg_pool2d(x, 2), [few], [True])
    run_both(lambda x: F.avg_pool1d(x, 3, 2), [randn(2, 3, 31)], [True])  # both inline


def test_conv_tf32_flag() -> None:
    # allow_tf32 on (PyTorch's default): TF32 products, ~1e-3 relative per product on a GPU; off: float32
    F = pytest.importorskip("ember.nn.functional")
    x, w, b = randn(4, 8, 12, 12), randn(16, 8, 3, 3, seed=1), randn(16, seed=2)
    want = F.conv2d(x, w, b, padding=1)
    ember.backends.cudnn.allow_tf32 = True
    assert ember.backends.cudnn.allow_tf32 is True
    check(F.conv2d(x.cuda(), w.cuda(), b.cuda(), padding=1), want, 2e-2)
    ember.backends.cudnn.allow_tf32 = False
    check(F.conv2d(x.cuda(), w.cuda(), b.cuda(), padding=1), want, 1e-4)
    with ember.backends.cudnn.flags(enabled=True, allow_tf32=True):
        check(F.conv2d(x.cuda(), w.cuda(), b.cuda(), padding=1), want, 2e-2)
    assert ember.backends.cudnn.allow_tf32 is False
    # the matmul flag is its own: convolutions leave it as it was
    assert ember.get_float32_matmul_precision() == "highest"
    check(x.cuda().flatten(1) @ x.cuda().flatten(1).t(), x.flatten(1) @ x.flatten(1).t(), 1e-4)


# ---------------------------------------------------------------- upsampling

UPSAMPLE = {
    "nearest": ((2, 3, 5, 7), {"scale_factor": 2, "mode": "nearest"}),
    "nearest-size": ((2, 3, 5, 7), {"size": (8, 11), "mode": "nearest"}),
    "nearest-exact": ((2, 3, 5, 7), {"size": (9, 4), "mode": "nearest-exact"}),
    "nearest1d": ((2, 3, 9), {"scale_factor": 1.7, "mode": "nearest"}),
    "nearest3d": ((1, 2, 3, 4, 5), {"scale_factor": 2, "mode": "nearest"}),
    "linear": ((2, 3, 9), {"size": 20, "mode": "linear"}),
    "bilinear": ((2, 3, 5, 7), {"scale_factor": 2, "mode": "bilinear"}),
    "bilinear-corners": ((2, 3, 5, 7), {"size": (9, 13), "mode": "bilinear", "align_corners": True}),
    "bilinear-down": ((2, 3, 10, 12), {"size": (4, 5), "mode": "bilinear"}),
    "bicubic": ((2, 3, 5, 7), {"scale_factor": 2, "mode": "bicubic"}),
    "bicubic-corners": ((1, 2, 6, 6), {"size": (11, 8), "mode": "bicubic", "align_corners": True}),
    "trilinear": ((1, 2, 3, 4, 5), {"size": (5, 7, 6), "mode": "trilinear"}),
}


@pytest.mark.parametrize("case", list(UPSAMPLE))
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16], ids=str)
def test_upsample_and_backward(case: str, dtype: ember.dtype) -> None:
    # the taps are the CPU's (built on the host); sums in op-math, the backward's atomically
    F = pytest.importorskip("ember.nn.functional")
    shape, kw = UPSAMPLE[case]
    x = randn(*shape, dtype=dtype)
    tol = {ember.float32: 1e-5, ember.float64: 1e-12, ember.float16: 2e-3}[dtype]
    run_both(lambda x: F.interpolate(x, **kw), [x], [True], tol=tol)


def test_upsample_module_channels_last_and_uint8() -> None:
    nn = pytest.importorskip("ember.nn")
    x = randn(2, 8, 6, 6)
    up = nn.Upsample(scale_factor=2, mode="bilinear")
    check(up(x.cuda()), up(x), 1e-5)
    xcl = x.contiguous(memory_format=ember.channels_last)  # the CPU's channels-last rounding form
    check(up(xcl.cuda()), up(xcl), 1e-5)
    u8 = (x.abs() * 20).to(ember.uint8)
    with pytest.raises((RuntimeError, NotImplementedError), match="not implemented for 'Byte'"):
        nn.functional.interpolate(u8.cuda(), scale_factor=2, mode="nearest")


GRID_SAMPLE = [(mode, padding, align, dims) for dims in (2, 3) for mode in ("bilinear", "nearest", "bicubic")
               for padding in ("zeros", "border", "reflection") for align in (False, True)
               if not (dims == 3 and mode == "bicubic")]


@pytest.mark.parametrize("mode, padding, align, dims", GRID_SAMPLE, ids=str)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16], ids=str)
def test_grid_sample_and_backward(mode: str, padding: str, align: bool, dims: int, dtype: ember.dtype) -> None:
    # the CPU's per-point work on a thread per output point; the input gradient added atomically
    F = pytest.importorskip("ember.nn.functional")
    g = ember.Generator().manual_seed(3)
    x = ember.randn(*((2, 3, 5, 6) if dims == 2 else (2, 2, 4, 5, 3)), generator=g).to(dtype)
    # points inside, on the border and outside [-1, 1]
    grid = (ember.rand(*((2, 4, 7, 2) if dims == 2 else (2, 3, 4, 2, 3)), generator=g) * 2.6 - 1.3).to(dtype)
    tol = {ember.float32: 1e-5, ember.float64: 1e-12, ember.float16: 1e-2}[dtype]
    grads = [True, mode != "nearest"]  # nearest's grid gradient is 0 on both
    run_both(lambda x, grid: F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align),
             [x, grid], grads, tol=tol)


def test_affine_grid_sample_module_path() -> None:
    # a spatial transformer's two ops, the gradient reaching theta
    F = pytest.importorskip("ember.nn.functional")
    theta = ember.tensor([[[0.9, 0.1, 0.05], [-0.1, 1.1, 0.0]]]).repeat(3, 1, 1)
    x = randn(3, 4, 8, 8)
    run_both(lambda x, t: F.grid_sample(x, F.affine_grid(t, [3, 4, 6, 6], align_corners=False), align_corners=False),
             [x, theta], [True, True], tol=1e-5)
