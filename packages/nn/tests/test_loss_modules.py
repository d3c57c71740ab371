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
