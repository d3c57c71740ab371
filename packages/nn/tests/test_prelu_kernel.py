"""F.prelu on aten's kernel pair (ember._nn._prelu_kernel / _prelu_kernel_backward): values,
both gradients and the second derivatives against PyTorch, with node names, x = 0 included."""

from __future__ import annotations

import ember
import ember.nn.functional as EF
import pytest
from _nn_testutil import ember_of, float64_of

torch = pytest.importorskip("torch")
TF = torch.nn.functional

SHAPES = [((4, 3, 5), (3,)), ((4, 3), (1,)), ((5,), (1,)), ((), (1,)), ((2, 3, 4, 4), (3,)), ((3,), ())]


def to_ember(t: torch.Tensor) -> ember.Tensor:
    return ember_of(t)


def to_torch(e: ember.Tensor) -> torch.Tensor:
    return float64_of(torch, e)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize(("xs", "ws"), SHAPES)
def test_values_and_gradients(dtype: str, xs: tuple, ws: tuple) -> None:
    g = torch.Generator().manual_seed(11)
    dt = getattr(torch, dtype)
    x = torch.randn(xs, generator=g).to(dt)
    x.view(-1)[:1] = 0  # the kernel's negative side, the formulas' positive side
    w = (torch.rand(ws, generator=g) - 0.3).to(dt)
    xt, wt = x.clone().requires_grad_(), w.clone().requires_grad_()
    xe, we = to_ember(x).requires_grad_(), to_ember(w).requires_grad_()
    yt, ye = TF.prelu(xt, wt), EF.prelu(xe, we)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__ == "PreluKernelBackward0"
    assert torch.equal(to_torch(ye), yt.detach().double())
    go = torch.randn(yt.shape, generator=g).to(dt)
    gt = torch.autograd.grad(yt, [xt, wt], go)
    ge = ember.autograd.grad(ye, [xe, we], to_ember(go))
    # grad_weight sums the broadcast gradient: summation order in the half types
    tol = {"float16": 1e-2, "bfloat16": 5e-2}.get(dtype, 1e-6)
    for a, b in zip(ge, gt, strict=True):
        torch.testing.assert_close(to_torch(a), b.double(), rtol=tol, atol=tol)


@pytest.mark.parametrize(("xs", "ws"), SHAPES)
def test_second_derivatives(xs: tuple, ws: tuple) -> None:
    """PreluKernelBackwardBackward0's gradients to x, w and the incoming gradient."""
    g = torch.Generator().manual_seed(13)
    x = torch.randn(xs, dtype=torch.float64, generator=g)
    x.view(-1)[:1] = 0
    w = torch.rand(ws, dtype=torch.float64, generator=g) - 0.3
    go = torch.randn(xs, dtype=torch.float64, generator=g)
    tt = [t.clone().requires_grad_() for t in (x, w, go)]
    ee = [to_ember(t).requires_grad_() for t in (x, w, go)]
    a = torch.autograd.grad(TF.prelu(tt[0], tt[1]), tt[:2], tt[2], create_graph=True)
    b = ember.autograd.grad(EF.prelu(ee[0], ee[1]), ee[:2], ee[2], create_graph=True)
    assert [type(t.grad_fn).__name__ for t in b] == [type(t.grad_fn).__name__ for t in a]
    v1, v2 = torch.randn(xs, dtype=torch.float64, generator=g), torch.randn(ws, dtype=torch.float64, generator=g)
    st = (a[0] * v1).sum() + (a[1] * v2).sum()
    se = (b[0] * to_ember(v1)).sum() + (b[1] * to_ember(v2)).sum()
    for p, q in zip(ember.autograd.grad(se, ee), torch.autograd.grad(st, tt), strict=True):
        torch.testing.assert_close(to_torch(p), q, rtol=1e-12, atol=1e-12)
