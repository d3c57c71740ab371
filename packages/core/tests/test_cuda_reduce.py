"""Reductions on a GPU (issue 24): sum, nansum, prod, mean, max, min, all, any, norms over all dims
or some, compared with the same reduction on the CPU. Run by the GPU script (tools/gpu_check.sh)
with a CUDA build; skipped elsewhere."""

from __future__ import annotations

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

TOL = {ember.float32: 1e-5, ember.float64: 1e-12, ember.float16: 2e-3, ember.bfloat16: 1e-2}


def check(got: ember.Tensor, want: ember.Tensor) -> None:
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    g = got.cpu()
    if want.is_floating_point():
        tol = TOL[want.dtype]
        close = ((g.double() - want.double()).abs() <= tol * (1 + want.double().abs())) | (g == want)
        assert bool((close | (g.isnan() & want.isnan())).all()), (g, want)
    else:
        assert g.equal(want)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16], ids=str)
@pytest.mark.parametrize("dims", [None, 0, 1, (0, 2), -1])
def test_float_reductions(dtype: ember.dtype, dims: int | tuple[int, ...] | None) -> None:
    g = ember.Generator().manual_seed(7)
    x = ember.randn(33, 70, 5, generator=g).to(dtype)
    for src in (x, x.transpose(0, 2)):
        d = src.cuda()
        kw = {} if dims is None else {"dim": dims}
        for name in ("sum", "nansum", "mean", "amax", "amin"):
            check(getattr(ember, name)(d, **kw), getattr(ember, name)(src, **kw))
        check(ember.prod(d[:4, :6] * 0.5 + 1, **({} if dims is None else {"dim": 0})),
              ember.prod(src[:4, :6] * 0.5 + 1, **({} if dims is None else {"dim": 0})))


def test_integer_and_bool_reductions() -> None:
    x = (ember.arange(-500, 500) * 7919 % 1013).reshape(10, 100)
    for dtype in (ember.int64, ember.int32, ember.uint8):
        s = x.to(dtype)
        check(s.cuda().sum(), s.sum())
        check(s.cuda().sum(1), s.sum(1))
        check(s.cuda().amax(0), s.amax(0))
    b = x > 500
    check(b.cuda().all(1), b.all(1))
    check(b.cuda().any(), b.any())


def test_reductions_feed_autograd_of_broadcast_ops() -> None:
    w = ember.randn(1, 8, requires_grad=True)
    x = ember.randn(16, 8)
    wc = w.detach().cuda().requires_grad_()
    (x * w).square().mean().backward()
    (x.cuda() * wc).square().mean().backward()
    assert wc.grad is not None
    check(wc.grad, w.grad)


@pytest.mark.parametrize("shape, dim", [((300_001,), None), ((3, 40_000), 1), ((9000, 5), 0), ((2, 9000, 3), 1),
                                         ((17000, 33), 0), ((200, 70), 0), ((40, 20, 30), (0, 2))], ids=str)
def test_split_and_column_reductions(shape: tuple[int, ...], dim: int | tuple[int, ...] | None) -> None:
    # long reductions split over blocks (partials, then a second pass); reductions that keep the
    # contiguous dim read columns (adjacent outputs in adjacent threads), split too when few
    g = ember.Generator().manual_seed(11)
    x = ember.randn(*shape, generator=g)
    x.view(-1)[123] = float("nan")
    kw = {} if dim is None else {"dim": dim}
    d = x.cuda()
    for name in ("amax", "amin"):
        check(getattr(ember, name)(d, **kw), getattr(ember, name)(x, **kw))
    # sums: near the float64 sum, within float32's rounding of the terms' magnitudes (the CPU's
    # sequential float32 sum of thousands of terms is no closer than the device's tree)
    scale = x.abs().nan_to_num().double().sum(**kw)
    for name in ("sum", "nansum", "mean"):
        got, want = getattr(ember, name)(d, **kw).cpu().double(), getattr(ember, name)(x.double(), **kw)
        div = x.numel() / want.numel() if name == "mean" else 1.0
        assert bool(((got - want).abs() <= 1e-6 * scale / div + 1e-6).logical_or(got.isnan() & want.isnan()).all())
    xf = x.nan_to_num()
    want = ember.linalg.vector_norm(xf.double(), **kw)
    assert bool(((ember.linalg.vector_norm(xf.cuda(), **kw).cpu().double() - want).abs() <= 1e-5 * want).all())
    signs = ember.where(xf < 0, -1.0, 1.0)  # a product of many terms, exact in any order
    if not isinstance(dim, tuple):  # prod takes one dim
        check(ember.prod(signs.cuda(), **kw), ember.prod(signs, **kw))
    xi = (xf * 100).to(ember.int64)
    check(xi.cuda().sum(**kw), xi.sum(**kw))
    check((xi.cuda() > 50).any(**kw), (xi > 50).any(**kw))
    check((xi.cuda() > -300).all(**kw), (xi > -300).all(**kw))
    h = (xf / 8).half()
    got, want = h.cuda().sum(**kw).cpu().double(), h.double().sum(**kw)
    assert bool(((got - want).abs() <= 2e-3 * (1 + want.abs()) + 1e-5 * scale).all())


@pytest.mark.parametrize("shape, dim", [((4_300_000,), None), ((140_000, 31), 0)], ids=str)
def test_many_splits(shape: tuple[int, ...], dim: int | None) -> None:
    # 64 splits or more: the second pass takes a block per output
    x = ember.randn(*shape, generator=ember.Generator().manual_seed(3))
    kw = {} if dim is None else {"dim": dim}
    got, want = x.cuda().sum(**kw).cpu().double(), x.double().sum(**kw)
    assert bool(((got - want).abs() <= 1e-6 * x.abs().double().sum(**kw)).all())
    check(x.cuda().amax(**kw), x.amax(**kw))


@pytest.mark.parametrize(
    "shape, dim",
    [
        ((7, 9), 1),
        ((33, 70, 5), None),
        ((33, 70, 5), (0, 2)),
        ((300_001,), None),
        ((3, 40_000), 1),
        ((9000, 5), 0),
        ((17000, 33), 0),
        ((200, 70), 0),
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16], ids=str)
def test_var_std_one_pass(shape: tuple[int, ...], dim: int | tuple[int, ...] | None, dtype: ember.dtype) -> None:
    # the device's var / std is one Welford pass (short rows, block rows, columns, splits), the
    # CPU's two passes: both near the float64 result
    x = (ember.randn(*shape, generator=ember.Generator().manual_seed(5)) * 3 + 10).to(dtype)
    d = x.cuda()
    tol = {ember.float32: 1e-5, ember.float64: 1e-12}.get(dtype, TOL[dtype])
    for correction in (0, 1, 2):
        for keepdim in (False, True):
            kw = {"dim": dim, "correction": correction, "keepdim": keepdim}
            want_v, want_m = ember.var_mean(x.double(), **kw)
            got_v, got_m = ember.var_mean(d, **kw)
            got_s, got_s_m = ember.std_mean(d, **kw)
            assert got_v.dtype == dtype and got_v.shape == want_v.shape and got_m.shape == want_m.shape
            for got, want in (
                (got_v, want_v),
                (ember.var(d, **kw), want_v),
                (ember.std(d, **kw), want_v.sqrt()),
                (got_s, want_v.sqrt()),
                (got_m, want_m),
                (got_s_m, want_m),
            ):
                g = got.cpu().double()
                assert bool(((g - want).abs() <= tol * (1 + want.abs())).all()), (got, want)


def test_var_std_edges() -> None:
    # equal values: exactly 0; no values: NaN; inf: NaN; past the degrees of freedom: inf or NaN
    # with PyTorch's warning; complex: var(re) + var(im)
    x = ember.full((5, 3000), 0.1)
    assert bool((x.cuda().var(1) == 0).all()) and bool((x.cuda().std(0) == 0).all())
    e = ember.empty(4, 0).cuda()
    assert bool(e.var(1).cpu().isnan().all()) and bool(ember.var_mean(e, 1)[1].cpu().isnan().all())
    assert ember.tensor([1.0, float("inf"), 2.0]).cuda().var().cpu().isnan()
    assert ember.tensor([float("inf")]).cuda().var(correction=0).cpu().isnan()
    with pytest.warns(UserWarning, match="degrees of freedom"):
        one = ember.tensor([[2.0], [3.0]]).cuda().var(1)
    assert bool(one.cpu().isnan().all())
    with pytest.warns(UserWarning, match="degrees of freedom"):
        assert ember.tensor([1.0, 2.0]).cuda().var(correction=2).cpu().isinf()
    c = ember.randn(6, 40, dtype=ember.complex64, generator=ember.Generator().manual_seed(2))
    check(c.cuda().var(1), c.var(1))
    v, m = ember.var_mean(c.cuda(), 0)
    check(v, ember.var_mean(c, 0)[0])
    assert bool((m.cpu() - c.mean(0)).abs().max() < 1e-5)
