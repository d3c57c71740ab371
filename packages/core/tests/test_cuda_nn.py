"""softmax / log_softmax and nll_loss / cross_entropy on a GPU (issue 24), forward and backward,
compared with the same calls on the CPU. Run by the GPU script (tools/gpu_check.sh, which puts
ember-nn on the path) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

TOL = {ember.float32: 1e-5, ember.float64: 1e-12, ember.float16: 2e-3, ember.bfloat16: 1e-2}
DTYPES = list(TOL)


def check(got: ember.Tensor, want: ember.Tensor) -> None:
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    g, w = got.cpu().double(), want.double()
    assert bool((((g - w).abs() <= TOL[want.dtype] * (1 + w.abs())) | (g == w)).all())


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("dim", [-1, 0, 1])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_forward_and_backward(dtype: ember.dtype, dim: int, log: bool) -> None:
    g = ember.Generator().manual_seed(3)
    x = (ember.randn(7, 300, 5, generator=g) * 4).to(dtype)
    fn = ember.log_softmax if log else ember.softmax
    xc = x.clone().requires_grad_()
    xd = x.cuda().requires_grad_()
    yc, yd = fn(xc, dim), fn(xd, dim)
    check(yd, yc)
    w = ember.randn(7, 300, 5, generator=g).to(dtype)
    (yc * w).sum().backward()
    (yd * w.cuda()).sum().backward()
    assert xd.grad is not None and xc.grad is not None
    check(xd.grad, xc.grad)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_and_nll_loss(reduction: str, weighted: bool) -> None:
    F = pytest.importorskip("ember.nn.functional")
    g = ember.Generator().manual_seed(4)
    logits = ember.randn(64, 10, generator=g)
    target = ember.randint(0, 10, (64,), generator=g)
    target[3] = -100  # ignored
    weight = ember.rand(10, generator=g) + 0.5 if weighted else None
    lc = logits.clone().requires_grad_()
    ld = logits.cuda().requires_grad_()
    kw = {"reduction": reduction}
    yc = F.cross_entropy(lc, target, weight=weight, **kw)
    yd = F.cross_entropy(ld, target.cuda(), weight=None if weight is None else weight.cuda(), **kw)
    check(yd, yc)
    yc.sum().backward()
    yd.sum().backward()
    assert ld.grad is not None and lc.grad is not None
    check(ld.grad, lc.grad)
    check(F.nll_loss(ld.detach().log_softmax(1), target.cuda(), **kw), F.nll_loss(lc.detach().log_softmax(1), target, **kw))


def test_an_out_of_range_target_is_an_index_error() -> None:
    F = pytest.importorskip("ember.nn.functional")
    with pytest.raises(IndexError, match="Target 10 is out of bounds"):
        F.nll_loss(ember.zeros(2, 10).cuda(), ember.tensor([1, 10]).cuda())
