"""layer_norm, batch_norm and group_norm on a GPU (issue 24), forward and backward (input, weight
and bias gradients), compared with the same calls on the CPU; batch norm's running statistics
updated in place on the device. Run by the GPU script (tools/gpu_check.sh, which puts ember-nn on
the path) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

TOL = {ember.float32: 1e-5, ember.float64: 1e-12, ember.float16: 2e-3, ember.bfloat16: 1e-2}
DTYPES = list(TOL)


def check(got: ember.Tensor, want: ember.Tensor, tol: float | None = None) -> None:
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    g, w = got.cpu().double(), want.double()
    t = TOL[want.dtype] if tol is None else tol
    assert bool((((g - w).abs() <= t * (1 + w.abs())) | (g == w) | (g.isnan() & w.isnan())).all()), (g - w).abs().max()


def run_both(fn: Callable[..., ember.Tensor], args: list[Any], grads: list[bool], seed: int = 0,
             tol: float | None = None) -> tuple[list[Any], list[Any]]:
    """fn(*args) on the CPU and on the GPU; compares the results and, for the args marked in grads,
    the gradients of a random upstream gradient. Returns both argument lists (CPU, GPU)."""
    def prep(a: Any, g: bool, cuda: bool) -> Any:
        if not isinstance(a, ember.Tensor):
            return a
        t = a.cuda() if cuda else a.clone()
        return t.requires_grad_() if g else t

    cpu = [prep(a, g, False) for a, g in zip(args, grads)]
    gpu = [prep(a, g, True) for a, g in zip(args, grads)]
    yc, yd = fn(*cpu), fn(*gpu)
    check(yd, yc, tol)
    if any(grads):
        w = ember.randn(yc.shape, generator=ember.Generator().manual_seed(seed)).to(yc.dtype)
        yc.backward(w)
        yd.backward(w.cuda())
        for c, d, g in zip(cpu, gpu, grads):
            if g:
                assert c.grad is not None and d.grad is not None
                check(d.grad, c.grad, None if tol is None else 10 * tol)
    return cpu, gpu


def randn(*shape: int, seed: int = 1, dtype: ember.dtype = ember.float32, scale: float = 1.0,
          shift: float = 0.0) -> ember.Tensor:
    return (ember.randn(*shape, generator=ember.Generator().manual_seed(seed)) * scale + shift).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape,norm", [((4, 7, 33), (33,)), ((3, 5, 6), (5, 6)), ((2, 1000), (1000,))])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(dtype: ember.dtype, shape: tuple[int, ...], norm: tuple[int, ...], affine: bool) -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(*shape, dtype=dtype, scale=3, shift=1)
    w = randn(*norm, seed=2, dtype=dtype) if affine else None
    b = randn(*norm, seed=3, dtype=dtype) if affine else None
    run_both(lambda x, w, b: F.layer_norm(x, list(norm), w, b, eps=1e-5), [x, w, b], [True, affine, affine])


def test_layer_norm_long_rows_and_many_rows() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(3, 70000, scale=2)
    run_both(lambda x, w: F.layer_norm(x, [70000], w), [x, randn(70000, seed=4)], [True, True], tol=1e-4)
    x = randn(9000, 16, seed=5)  # many rows: the weight gradient's column sums go by row chunks
    run_both(lambda x, w, b: F.layer_norm(x, [16], w, b), [x, randn(16, seed=6), randn(16, seed=7)],
             [True, True, True], tol=1e-4)


def test_layer_norm_mixed_half_input_float_params_and_noncontiguous() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(6, 40, dtype=ember.bfloat16)
    w, b = randn(40, seed=2), randn(40, seed=3)
    run_both(lambda x, w, b: F.layer_norm(x, [40], w, b), [x, w, b], [True, True, True])
    xt = randn(40, 6).t()  # not contiguous
    run_both(lambda x: F.layer_norm(x, [40]), [xt], [True])


def test_layer_norm_rows_past_the_float_square_range() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(2, 50, dtype=ember.float64) * 1e160  # squared deviations overflow double
    run_both(lambda x: F.layer_norm(x, [50]), [x], [False])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(8, 3), (4, 5, 7), (2, 6, 5, 4), (3, 2, 2, 3, 4)])
def test_batch_norm_training_updates_running_stats(dtype: ember.dtype, shape: tuple[int, ...]) -> None:
    F = pytest.importorskip("ember.nn.functional")
    c = shape[1]
    x = randn(*shape, dtype=dtype, scale=2, shift=0.5)
    w, b = randn(c, seed=2, dtype=dtype), randn(c, seed=3, dtype=dtype)
    rm, rv = randn(c, seed=4, dtype=dtype), randn(c, seed=5, dtype=dtype).abs() + 0.5
    cpu, gpu = run_both(lambda x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.3),
                        [x, w, b, rm, rv], [True, True, True, False, False])
    check(gpu[3], cpu[3])  # running mean / var, updated on the device
    check(gpu[4], cpu[4])


def test_batch_norm_running_stats_shared_strided_or_mixed() -> None:
    # one pass updates both statistics only where they are apart; the rest, mean then variance
    F = pytest.importorskip("ember.nn.functional")
    x = randn(6, 4, 5, scale=2, shift=0.5)
    base = randn(12, seed=4).abs() + 0.5

    def stats(case: int, dev: str) -> list[ember.Tensor]:
        t = base.to(dev).clone()
        if case == 0:
            return [t[:4]] * 2  # one tensor as both
        if case == 1:
            return [t[::3], t[1::3]]  # strided, apart
        if case == 2:
            return [t[:1].expand(4), t[4:8]]  # channels sharing one value
        return [t[0:4], t[2:6]]  # overlapping: the variance reads two updated means

    for case in range(4):
        cpu, gpu = stats(case, "cpu"), stats(case, "cuda")
        for xs, (rm, rv) in ((x, cpu), (x.cuda(), gpu)):
            F.batch_norm(xs, rm, rv, training=True, momentum=0.3)
        for got, want in zip(gpu, cpu):
            check(got, want)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_batch_norm_eval(dtype: ember.dtype) -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(4, 6, 5, 5, dtype=dtype)
    w, b = randn(6, seed=2, dtype=dtype), randn(6, seed=3, dtype=dtype)
    rm, rv = randn(6, seed=4, dtype=dtype), randn(6, seed=5, dtype=dtype).abs() + 0.5
    cpu, gpu = run_both(lambda x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, training=False),
                        [x, w, b, rm, rv], [True, True, True, False, False])
    check(gpu[3], cpu[3])  # untouched
    check(gpu[4], cpu[4])


def test_batch_norm_without_affine_or_running_stats_and_noncontiguous() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(5, 4, 6, 3)
    run_both(lambda x: F.batch_norm(x, None, None, training=True), [x], [True])
    xt = randn(5, 6, 4, 3).transpose(1, 2)  # neither contiguous nor channels-last: the centered transform
    w, b = randn(4, seed=2), randn(4, seed=3)
    rm, rv = ember.zeros(4), ember.ones(4)
    cpu, gpu = run_both(lambda x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, training=True),
                        [xt, w, b, rm, rv], [True, True, True, False, False])
    check(gpu[3], cpu[3])
    check(gpu[4], cpu[4])


def test_batch_norm_module_trains_on_the_device() -> None:
    nn = pytest.importorskip("ember.nn")
    mc = nn.BatchNorm2d(3)
    md = nn.BatchNorm2d(3).cuda()
    x = randn(4, 3, 8, 8, scale=2, shift=1)
    for _ in range(2):
        yc, yd = mc(x), md(x.cuda())
        check(yd, yc)
    assert md.num_batches_tracked.item() == 2
    check(md.running_mean, mc.running_mean)
    check(md.running_var, mc.running_var)
    mc.eval()
    md.eval()
    check(md(x.cuda()), mc(x))


def test_batch_norm_large_channel() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(16, 2, 128, 128, scale=3, shift=2)  # 262144 values per channel
    run_both(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [x, randn(2, seed=2), randn(2, seed=3)],
             [True, True, True], tol=1e-4)


def test_batch_norm_more_channels_than_a_grid_row() -> None:
    # each channel's slices are blocks of one grid row (at most 65535 of them a launch)
    F = pytest.importorskip("ember.nn.functional")
    c = 70000
    x = randn(3, c, scale=2, shift=1)
    run_both(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
             [x, randn(c, seed=2), randn(c, seed=3)], [True, True, True], tol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape,groups", [((4, 6, 5), 3), ((2, 8, 4, 4), 2), ((3, 4), 4), ((2, 6, 2, 3, 2), 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm(dtype: ember.dtype, shape: tuple[int, ...], groups: int, affine: bool) -> None:
    F = pytest.importorskip("ember.nn.functional")
    c = shape[1]
    x = randn(*shape, dtype=dtype, scale=2, shift=-1)
    w = randn(c, seed=2, dtype=dtype) if affine else None
    b = randn(c, seed=3, dtype=dtype) if affine else None
    # one element a group ((3, 4), 4 groups): x - mean is 0 and the input gradient rounding noise
    # times rstd = 1/sqrt(eps) ~ 316 (PyTorch's CPU gives up to 1.5e-5 there, a GPU exactly 0)
    single = x.numel() // (shape[0] * groups) == 1
    run_both(lambda x, w, b: F.group_norm(x, groups, w, b), [x, w, b], [True, affine, affine],
             tol=1e-4 if single and dtype == ember.float32 else None)


def test_group_norm_large_and_noncontiguous() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(4, 32, 40, 40)
    run_both(lambda x, w, b: F.group_norm(x, 8, w, b), [x, randn(32, seed=2), randn(32, seed=3)], [True, True, True],
             tol=1e-4)
    xt = randn(4, 5, 6, 8).transpose(1, 3)
    run_both(lambda x: F.group_norm(x, 4), [xt], [True])


def test_norm_errors_match_the_cpu() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x = randn(2, 6, 3).cuda()
    with pytest.raises(RuntimeError, match="divisible by"):
        F.group_norm(x, 4)
    with pytest.raises(RuntimeError, match="Given normalized_shape"):
        F.layer_norm(x, [4])
    with pytest.raises(RuntimeError, match="running_mean should contain 6 elements not 5"):
        F.batch_norm(x, ember.zeros(5).cuda(), ember.ones(5).cuda(), training=True)
