"""Loss functions: values and gradients against torch for every reduction."""

from __future__ import annotations

from typing import Any

import ember
import ember.nn as nn
import ember.nn.functional as F
import numpy as np
import pytest
from _nn_testutil import close, pair

RNG = np.random.default_rng(0)
REDUCTIONS = ["mean", "sum", "none"]


def _check(torch: Any, ename: str, args: tuple[Any, ...], kwargs: dict[str, Any], inp: np.ndarray,
           target: np.ndarray, target_dtype: str = "float32", atol: float = 1e-5, **tensor_kwargs: Any) -> None:
    xe, xt = pair(torch, inp, requires_grad=True)
    te, tt = pair(torch, target, dtype=target_dtype)
    ekw = {k: ember.tensor(v.tolist()) if isinstance(v, np.ndarray) else v for k, v in tensor_kwargs.items()}
    tkw = {k: torch.tensor(v, dtype=torch.float32) if isinstance(v, np.ndarray) else v
           for k, v in tensor_kwargs.items()}
    me = getattr(nn, ename)(*args, **kwargs, **ekw)
    mt = getattr(torch.nn, ename)(*args, **kwargs, **tkw)
    ye, yt = me(xe, te), mt(xt, tt)
    close(ye, yt, atol=atol)
    seed = np.linspace(0.5, 1.5, max(yt.numel(), 1), dtype="float32").reshape(tuple(yt.shape))
    ye.backward(ember.from_numpy(seed))
    yt.backward(torch.from_numpy(seed))
    close(xe.grad, xt.grad, atol=atol)
    assert list(me.state_dict()) == list(mt.state_dict())


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kw", [("MSELoss", {}), ("L1Loss", {}), ("SmoothL1Loss", {"beta": 0.5}),
                                     ("SmoothL1Loss", {"beta": 0.0}), ("HuberLoss", {"delta": 0.7})])
def test_regression_losses(torch: Any, name: str, kw: dict[str, Any], reduction: str) -> None:
    _check(torch, name, (), {"reduction": reduction, **kw}, RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce(torch: Any, reduction: str) -> None:
    p = np.array([[0.0, 0.2, 0.7], [1.0, 0.5, 0.99]])
    y = np.array([[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    _check(torch, "BCELoss", (), {"reduction": reduction}, p[:, 1:], y[:, 1:], weight=np.array([0.5, 2.0]))
    e = F.binary_cross_entropy(ember.tensor(p.tolist()), ember.tensor(y.tolist()), reduction=reduction)
    t = torch.nn.functional.binary_cross_entropy(torch.tensor(p), torch.tensor(y), reduction=reduction)
    close(e, t.float())
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(ember.tensor([1.5]), ember.tensor([1.0]))
    with pytest.raises(ValueError, match="Please ensure they have the same size"):
        F.binary_cross_entropy(ember.tensor([0.5]), ember.tensor([1.0, 0.0]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits(torch: Any, reduction: str) -> None:
    x = np.array([[-120.0, -2.0, 0.0], [0.0, 3.0, 150.0]])
    y = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    _check(torch, "BCEWithLogitsLoss", (), {"reduction": reduction}, x, y)
    _check(torch, "BCEWithLogitsLoss", (), {"reduction": reduction}, x, y, pos_weight=np.array([1.0, 2.0, 0.5]),
           weight=np.array([[2.0], [0.5]]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kw", [{}, {"ignore_index": 1}, {"label_smoothing": 0.2},
                                {"label_smoothing": 0.1, "ignore_index": 0}])
def test_cross_entropy_indices(torch: Any, reduction: str, kw: dict[str, Any]) -> None:
    x = RNG.normal(size=(5, 4)) * 3
    y = np.array([0, 1, 3, 1, 2])
    _check(torch, "CrossEntropyLoss", (), {"reduction": reduction, **kw}, x, y, target_dtype="int64")
    _check(torch, "CrossEntropyLoss", (), {"reduction": reduction, **kw}, x, y, target_dtype="int64",
           weight=np.array([0.2, 1.0, 2.0, 0.7]))
    # (N, C, d) inputs and an unbatched (C,) input
    _check(torch, "CrossEntropyLoss", (), {"reduction": reduction, **kw}, RNG.normal(size=(2, 3, 4)),
           np.array([[0, 1, 2, 1], [2, 2, 0, 1]]), target_dtype="int64")
    _check(torch, "CrossEntropyLoss", (), {"reduction": reduction, **kw}, RNG.normal(size=(3,)), np.array(2),
           target_dtype="int64")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_probabilities(torch: Any, reduction: str, smoothing: float) -> None:
    x = RNG.normal(size=(4, 3))
    p = RNG.random(size=(4, 3))
    p = p / p.sum(1, keepdims=True)
    _check(torch, "CrossEntropyLoss", (), {"reduction": reduction, "label_smoothing": smoothing}, x, p,
           weight=np.array([1.0, 0.5, 2.0]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll(torch: Any, reduction: str) -> None:
    x = np.log(RNG.random(size=(4, 3)))
    y = np.array([2, 0, -100, 1])
    _check(torch, "NLLLoss", (), {"reduction": reduction}, x, y, target_dtype="int64",
           weight=np.array([1.0, 3.0, 0.5]))


def test_nll_errors_match_torch(torch: Any) -> None:
    x = ember.zeros(3, 4)
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
        F.nll_loss(x, ember.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        F.cross_entropy(x, ember.tensor([1, 2, 7]))
    assert np.isnan(F.cross_entropy(x, ember.tensor([-100, -100, -100])).item())


@pytest.mark.parametrize("reduction", ["sum", "none", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(torch: Any, reduction: str, log_target: bool) -> None:
    x = np.log(RNG.random(size=(3, 4)))
    t = RNG.random(size=(3, 4))
    t[0, 0] = 0.0
    if log_target:
        t = np.log(t + 0.1)
    _check(torch, "KLDivLoss", (), {"reduction": reduction, "log_target": log_target}, x, t)


def test_reduction_validation_and_warnings(torch: Any) -> None:
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.mse_loss(ember.ones(2), ember.ones(2), reduction="avg")
    with pytest.warns(UserWarning, match="Using a target size"):
        F.mse_loss(ember.ones(2, 1), ember.ones(2))
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        m = nn.MSELoss(reduce=False)
    assert m.reduction == "none"
    with pytest.warns(UserWarning, match="'batchmean'"):
        F.kl_div(ember.zeros(2), ember.ones(2))
