"""The fused nll_loss_forward / nll_loss_backward kernels (ember._nn) behind F.nll_loss and
F.cross_entropy, against PyTorch: every reduction, class weights, ignore_index, (N, C, *)
inputs, double backward, and the errors (a bad target is an IndexError before any read)."""

from __future__ import annotations

from typing import Any

import ember
import ember.nn.functional as F
import numpy as np
import pytest

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(5)


def _pair(a: np.ndarray, grad: bool = False) -> tuple[Any, Any]:
    e, t = ember.tensor(a), torch.tensor(a)
    if grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 2, 3), (5,), (2, 3, 7)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("fn", ["nll_loss", "cross_entropy"])
def test_matches_torch(shape: tuple, reduction: str, weighted: bool, fn: str) -> None:
    c = shape[1] if len(shape) > 1 else shape[0]
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    tgt = RNG.integers(0, c, size=tshape)
    if tgt.size > 2:
        tgt.flat[1] = -100  # one ignored position
    ex, tx = _pair(RNG.standard_normal(shape), grad=True)
    ew, tw = _pair(RNG.random(c) + 0.5) if weighted else (None, None)
    eg, tg = _pair(RNG.standard_normal(tshape)) if reduction == "none" else (None, None)
    eo = getattr(F, fn)(ex, ember.tensor(tgt), weight=ew, reduction=reduction)
    to = getattr(torch.nn.functional, fn)(tx, torch.tensor(tgt), weight=tw, reduction=reduction)
    np.testing.assert_allclose(eo.detach().numpy(), to.detach().numpy(), rtol=1e-12, atol=1e-12)
    eo.backward(eg)
    to.backward(tg)
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_names_and_double_backward() -> None:
    x = ember.randn(4, 6, dtype=ember.float64, requires_grad=True)
    t = ember.tensor([1, 5, -100, 0])
    w = ember.rand(6, dtype=ember.float64) + 0.5
    loss = F.nll_loss(x, t, weight=w)
    assert type(loss.grad_fn).__name__ == "NllLossBackward0"
    assert ember.autograd.gradcheck(lambda a: F.nll_loss(a, t, weight=w), (x,))
    assert ember.autograd.gradgradcheck(lambda a: F.cross_entropy(a, t, weight=w, reduction="sum"), (x,))
    assert ember.autograd.gradgradcheck(lambda a: F.nll_loss(a, t, reduction="none"), (x,))


def test_errors() -> None:
    x = ember.randn(3, 4)
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        F.nll_loss(x, ember.tensor([0, 7, 9]))
    with pytest.raises(IndexError, match="Target -2 is out of bounds."):
        F.cross_entropy(x, ember.tensor([0, -2, 1]))
    with pytest.raises(RuntimeError, match="weight tensor should be defined"):
        F.nll_loss(x, ember.tensor([0, 1, 2]), weight=ember.ones(3))
    w = ember.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        F.nll_loss(x.requires_grad_(), ember.tensor([0, 1, 2]), weight=w)
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        ember._nn.nll_loss_forward(x, ember.tensor([0, 1, 2], dtype=ember.int32), None, 1, -100)


def test_all_ignored_mean_is_nan() -> None:
    x = ember.randn(2, 3)
    out = F.nll_loss(x, ember.tensor([-100, -100]))
    ref = torch.nn.functional.nll_loss(torch.tensor(x.numpy()), torch.tensor([-100, -100]))
    assert np.isnan(out.item()) and np.isnan(ref.item())
