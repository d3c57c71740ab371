"""The module forms of the margin / ranking / embedding / NLL / CTC losses, the distances and
ChannelShuffle (modules/loss_margin.py, distance.py, pixelshuffle.py) against PyTorch's: the same
values for the same arguments, the same constructor errors, the same repr."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
import ember.nn as nn  # noqa: E402


def pair(*shape: int, seed: int = 0) -> tuple[Any, Any]:
    t = torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return t, ember.tensor(t.tolist(), dtype=ember.float64)


def ints(values: Any) -> tuple[Any, Any]:
    return torch.tensor(values), ember.tensor(values)


A, B, C = pair(4, 5), pair(4, 5, seed=1), pair(4, 5, seed=2)
Y = ints([1, -1, 1, -1])
CLS = ints([0, 3, 1, 4])
LABELS = ints([[3, 0, -1, 1, 2], [1, 2, -1, 0, 0], [4, -1, 0, 0, 0], [0, 1, 2, 3, 4]])

# name -> (constructor kwargs, argument pairs (torch, ember))
CASES: dict[str, tuple[dict, Any]] = {
    "MarginRankingLoss": ({"margin": 0.5}, lambda: [(A[0][:, 0], A[1][:, 0]), (B[0][:, 0], B[1][:, 0]),
                                                    (Y[0].double(), Y[1].double())]),
    "HingeEmbeddingLoss": ({"margin": 0.7, "reduction": "sum"}, lambda: [A, (B[0].sign(), B[1].sign())]),
    "CosineEmbeddingLoss": ({"margin": 0.1}, lambda: [A, B, (Y[0].double(), Y[1].double())]),
    "SoftMarginLoss": ({"reduction": "none"}, lambda: [A, (B[0].sign(), B[1].sign())]),
    "MultiLabelMarginLoss": ({}, lambda: [A, LABELS]),
    "MultiLabelSoftMarginLoss": ({"weight": None}, lambda: [A, ((A[0] > 0).double(), (A[1] > 0).double())]),
    "MultiMarginLoss": ({"p": 2, "margin": 0.5}, lambda: [A, CLS]),
    "TripletMarginLoss": ({"margin": 0.5, "swap": True}, lambda: [A, B, C]),
    "TripletMarginWithDistanceLoss": ({"margin": 0.5}, lambda: [A, B, C]),
    "PoissonNLLLoss": ({"full": True}, lambda: [A, (B[0].abs(), B[1].abs())]),
    "GaussianNLLLoss": ({"full": True}, lambda: [A, B, (C[0].abs(), C[1].abs())]),
    "CosineSimilarity": ({"dim": 0}, lambda: [A, B]),
    "PairwiseDistance": ({"p": 3.0, "keepdim": True}, lambda: [A, B]),
    "ChannelShuffle": ({"groups": 2}, lambda: [(A[0].reshape(1, 4, 5), A[1].reshape(1, 4, 5))]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_module_matches_torch(name: str) -> None:
    kwargs, args = CASES[name]
    pairs = args()
    want = getattr(torch.nn, name)(**kwargs)(*[p[0] for p in pairs])
    got = getattr(nn, name)(**kwargs)(*[p[1] for p in pairs])
    assert tuple(got.shape) == tuple(want.shape)
    assert torch.allclose(torch.tensor(got.tolist(), dtype=torch.float64), want, atol=1e-10)


def test_ctc_loss_module() -> None:
    lp, elp = pair(6, 2, 5)
    lp, elp = lp.log_softmax(2), elp.log_softmax(2)
    targets, lengths, tlengths = ints([[1, 2], [3, 3]]), ints([6, 5]), ints([2, 2])
    for kw in ({}, {"reduction": "sum", "zero_infinity": True}, {"blank": 4}):
        want = torch.nn.CTCLoss(**kw)(lp, targets[0], lengths[0], tlengths[0])
        got = nn.CTCLoss(**kw)(elp, targets[1], lengths[1], tlengths[1])
        assert abs(got.item() - want.item()) < 1e-9


def test_constructor_errors_and_repr() -> None:
    for make in (lambda m: m.MultiMarginLoss(p=3), lambda m: m.TripletMarginLoss(margin=0),
                 lambda m: m.TripletMarginWithDistanceLoss(margin=-1.0)):
        with pytest.raises(ValueError) as want:
            make(torch.nn)
        with pytest.raises(ValueError) as got:
            make(nn)
        assert str(got.value) == str(want.value)
    assert repr(nn.ChannelShuffle(3)) == repr(torch.nn.ChannelShuffle(3))
    assert isinstance(nn.MultiMarginLoss(weight=ember.ones(4)).weight, ember.Tensor)  # a buffer, as torch's


def test_adaptive_log_softmax_with_loss() -> None:
    # torch's parameters copied over: outputs, loss, log_prob, predict, gradients, errors, repr
    torch.manual_seed(0)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], div_value=2.0, head_bias=True).double()
    em = nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], div_value=2.0, head_bias=True).double()
    assert sorted(em.state_dict()) == sorted(tm.state_dict()) and repr(em) == repr(tm)
    em.load_state_dict({k: ember.tensor(v.tolist(), dtype=ember.float64) for k, v in tm.state_dict().items()})
    (x, ex), (y, ey) = pair(7, 8), ints([0, 5, 19, 3, 12, 10, 16])

    def close(e: Any, t: Any) -> bool:
        return torch.allclose(torch.tensor(e.tolist(), dtype=torch.float64), t.detach(), atol=1e-12)

    to, eo = tm(x, y), em(ex, ey)
    assert close(eo.output, to.output) and close(eo.loss, to.loss)
    assert close(em.log_prob(ex), tm.log_prob(x)) and em.predict(ex).tolist() == tm.predict(x).tolist()
    assert close(em(ex[0], ey[0]).output, tm(x[0], y[0]).output)
    eo.loss.backward()
    to.loss.backward()
    assert close(em.head.weight.grad, tm.head.weight.grad) and close(em.tail[1][0].weight.grad, tm.tail[1][0].weight.grad)
    for bad in ([5, 3], [0, 4], [4, 20], []):
        with pytest.raises(ValueError) as want:
            torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, bad)
        with pytest.raises(ValueError) as got:
            nn.AdaptiveLogSoftmaxWithLoss(8, 20, bad)
        assert str(got.value) == str(want.value)
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 19\]"):
        em(ex, ember.tensor([0, 25, 1, 1, 1, 1, 1]))
