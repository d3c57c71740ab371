"""F.smooth_l1_loss and F.huber_loss on aten's kernels (ember._nn.smooth_l1_loss / huber_loss and
their backwards): values, gradients and second derivatives against PyTorch, node names, and the
half types, whose steps aten computes partly in the half type itself (loss_ops.h)."""

from __future__ import annotations

import itertools

import ember
import ember.nn.functional as EF
import pytest
from _nn_testutil import ember_of, float64_of

torch = pytest.importorskip("torch")
TF = torch.nn.functional

LOSSES = [("smooth_l1_loss", "beta"), ("huber_loss", "delta")]


def to_ember(t: torch.Tensor) -> ember.Tensor:
    return ember_of(t)


def to_torch(e: ember.Tensor) -> torch.Tensor:
    return float64_of(torch, e)


def assert_close(e: ember.Tensor, t: torch.Tensor, reduced: bool) -> None:
    assert tuple(e.shape) == tuple(t.shape) and str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    if reduced:  # a sum in another order: a few ulps of the summed magnitude
        torch.testing.assert_close(to_torch(e), t.detach().double(), rtol=1e-5, atol=1e-5)
    elif t.dtype in (torch.float16, torch.bfloat16):  # one step of the half type (another CPU's vector path)
        eps = torch.finfo(t.dtype).eps
        torch.testing.assert_close(to_torch(e), t.detach().double(), rtol=eps, atol=eps * 1e-3, equal_nan=True)
    else:  # elementwise: aten's vector loop, step by step
        torch.testing.assert_close(to_torch(e), t.detach().double(), rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize(("fn", "param"), LOSSES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_values_and_gradients(fn: str, param: str, dtype: str, reduction: str) -> None:
    g = torch.Generator().manual_seed(3)
    dt = getattr(torch, dtype)
    # 2048 elements: whole vectors on any CPU (aten's scalar tail rounds and compares differently)
    x = (torch.randn(2048, generator=g) * 3).to(dt)
    y = (torch.randn(2048, generator=g) * 3).to(dt)
    for value in (1.0, 0.5, 2.75):
        xt, yt = x.clone().requires_grad_(), y.clone().requires_grad_()
        xe, ye = to_ember(x).requires_grad_(), to_ember(y).requires_grad_()
        lt = getattr(TF, fn)(xt, yt, reduction=reduction, **{param: value})
        le = getattr(EF, fn)(xe, ye, reduction=reduction, **{param: value})
        assert type(le.grad_fn).__name__ == type(lt.grad_fn).__name__
        assert_close(le, lt, reduction != "none")
        w = torch.randn(lt.shape, generator=g).to(dt)
        gt = torch.autograd.grad(lt, [xt, yt], w)
        ge = ember.autograd.grad(le, [xe, ye], to_ember(w))
        for a, b in zip(ge, gt, strict=True):
            assert_close(a, b, False)


@pytest.mark.parametrize(("fn", "param"), LOSSES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_second_derivatives(fn: str, param: str, reduction: str) -> None:
    """The backward's own node (SmoothL1LossBackwardBackward0 / HuberLossBackwardBackward0): its
    gradients to self, target and the incoming gradient."""
    g = torch.Generator().manual_seed(5)
    values = (1.0, 0.5, 0.0) if fn == "smooth_l1_loss" else (1.0, 0.5)
    for value in values:
        x, y = (torch.randn(3, 4, dtype=torch.float64, generator=g) for _ in range(2))
        xt, yt = x.clone().requires_grad_(), y.clone().requires_grad_()
        xe, ye = to_ember(x).requires_grad_(), to_ember(y).requires_grad_()
        lt = getattr(TF, fn)(xt, yt, reduction=reduction, **{param: value})
        le = getattr(EF, fn)(xe, ye, reduction=reduction, **{param: value})
        wt = torch.randn(lt.shape, dtype=torch.float64, generator=g).requires_grad_()
        we = to_ember(wt).requires_grad_()
        gxt, gyt = torch.autograd.grad(lt, [xt, yt], wt, create_graph=True)
        gxe, gye = ember.autograd.grad(le, [xe, ye], we, create_graph=True)
        assert type(gxe.grad_fn).__name__ == type(gxt.grad_fn).__name__
        v = torch.randn(3, 4, dtype=torch.float64, generator=g)
        st = (gxt * v).sum() + (gyt * v * 2).sum()
        se = (gxe * to_ember(v)).sum() + (gye * to_ember(v) * 2).sum()
        for a, b in zip(ember.autograd.grad(se, [xe, ye, we]), torch.autograd.grad(st, [xt, yt, wt]), strict=True):
            torch.testing.assert_close(to_torch(a), b, rtol=1e-12, atol=1e-12)


def test_broadcast_weight_and_errors() -> None:
    """F's broadcast (with its warning), huber's per-element weight, and aten's refusals."""
    g = torch.Generator().manual_seed(7)
    x, y = torch.randn(3, 1, generator=g), torch.randn(1, 4, generator=g)
    for (fn, param), red in itertools.product(LOSSES, ["none", "mean"]):
        with pytest.warns(UserWarning):
            le = getattr(EF, fn)(to_ember(x), to_ember(y), reduction=red, **{param: 0.5})
        with pytest.warns(UserWarning):
            lt = getattr(TF, fn)(x, y, reduction=red, **{param: 0.5})
        assert_close(le, lt, red != "none")
    x, y, w = (torch.randn(3, 4, generator=g) for _ in range(3))
    for red in ["none", "mean", "sum"]:
        assert_close(EF.huber_loss(to_ember(x), to_ember(y), red, 0.7, to_ember(w)),
                     TF.huber_loss(x, y, red, 0.7, w), red != "none")
    cases = [
        (lambda F, L: F.smooth_l1_loss(L.ones(3), L.ones(3), beta=-1.0), RuntimeError, "negative values for beta"),
        (lambda F, L: F.huber_loss(L.ones(3), L.ones(3), delta=0.0), RuntimeError, "non-positive values for delta"),
        (lambda F, L: F.smooth_l1_loss(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)), NotImplementedError,
         "smooth_l1_cpu"),
        (lambda F, L: F.huber_loss(L.ones(3, dtype=L.int64), L.ones(3)), RuntimeError, "can't be cast"),
        (lambda F, L: F.smooth_l1_loss(L.ones(3), L.ones(3), reduction="avg"), ValueError, "not a valid value"),
        (lambda F, L: F.huber_loss(L.ones(3), L.ones(3), "avg"), ValueError, "not a valid value"),
    ]
    for call, exc, text in cases:
        with pytest.raises(exc, match=text):
            call(TF, torch)
        with pytest.raises(exc, match=text):
            call(EF, ember)


def test_integer_backward_refuses_a_zero_beta() -> None:
    """aten's kernel divides by an integer beta truncated to 0 (SIGFPE in PyTorch): ember raises."""
    x = ember.tensor([-3, 0, 1, 4] * 10)
    with pytest.raises(RuntimeError, match="truncates to 0"):
        ember._nn.smooth_l1_loss_backward(ember.tensor(2), x, ember.zeros(40, dtype=ember.int64), 2, 0.5)
    got = ember._nn.smooth_l1_loss_backward(ember.tensor(2), x, ember.zeros(40, dtype=ember.int64), 2, 1.0)
    assert got.tolist() == [-2, 0, 2, 2] * 10
