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
        assert bool((((g.double() - want.double()).abs() <= tol * (1 + want.double().abs())) | (g == want)).all())
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
