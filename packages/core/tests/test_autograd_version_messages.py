"""The error for a saved tensor modified in place, word for word as PyTorch's: the forward op's
name (Exp, not ExpBackward0; a custom Function's own name) and the anomaly-mode hint."""

from __future__ import annotations

import warnings
from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")


def _message(L: Any, case: str) -> str:
    t = L.ones(2, 2, requires_grad=True)
    if case == "exp":
        y = t.exp()
        y.mul_(2)
    elif case == "addmm-sigmoid":
        y = L.addmm(t, t, t).sigmoid()
        y.mul_(2)
    elif case == "custom":
        class Sq(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                y = x * x
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                (y,) = ctx.saved_tensors
                return g * 2 * y.sqrt()
        y = Sq.apply(t)
        y.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    return str(info.value).replace("torch.", "")


@pytest.mark.parametrize("case", ["exp", "addmm-sigmoid", "custom"])
def test_modified_saved_tensor_message(case: str) -> None:
    assert _message(ember, case) == _message(torch, case)


def test_modified_saved_tensor_message_in_anomaly_mode() -> None:
    msgs = []
    for L in (ember, torch):
        with warnings.catch_warnings(), L.autograd.detect_anomaly():
            warnings.simplefilter("ignore")
            msgs.append(_message(L, "exp"))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("call", ["empty", "tensor"])
def test_set_on_a_leaf_that_requires_grad(call: str) -> None:
    for L in (ember, torch):
        t = L.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            t.set_() if call == "empty" else t.set_(L.zeros(2))
        with L.no_grad():
            assert t.set_(L.zeros(3)).shape == (3,)


@pytest.mark.parametrize("key", ["int", "slice", "tensor", "mask", "ellipsis", "none", "pair", "out-of-range"])
def test_setitem_on_a_leaf_that_requires_grad(key: str) -> None:
    def message(L: Any) -> str:
        keys = {"int": 0, "slice": slice(0, 1), "tensor": (L.tensor([0]),), "mask": L.tensor([True, False, True]),
                "ellipsis": Ellipsis, "none": None, "pair": (0, 1), "out-of-range": 5}
        t = L.ones(3, 2, requires_grad=True)
        with pytest.raises((RuntimeError, IndexError)) as info:
            t[keys[key]] = 1.0
        return f"{info.type.__name__}: {info.value}"
    assert message(ember) == message(torch)


# Results whose op filled or copied into its own output first: aten's kernels start them at
# version 0, so the versions an error message quotes match torch's.
FRESH = {
    "zeros": lambda L: L.zeros(3), "ones": lambda L: L.ones(3), "full": lambda L: L.full((3,), 2.0),
    "eye": lambda L: L.eye(3), "randn": lambda L: L.randn(3), "rand": lambda L: L.rand(3),
    "randint": lambda L: L.randint(0, 5, (3,)), "zeros_like": lambda L: L.zeros_like(L.ones(2)),
    "full_like": lambda L: L.full_like(L.ones(2), 3.0), "randn_like": lambda L: L.randn_like(L.ones(2)),
    "normal": lambda L: L.normal(0.0, 1.0, (3,)), "bernoulli": lambda L: L.bernoulli(L.ones(3) * 0.5),
    "new_zeros": lambda L: L.ones(3).new_zeros(2), "new_full": lambda L: L.ones(3).new_full((2,), 1.0),
    "repeat": lambda L: L.ones(3).repeat(2), "index_select": lambda L: L.ones(3).index_select(0, L.tensor([0])),
    "masked_select": lambda L: L.ones(3).masked_select(L.ones(3).bool()), "nonzero": lambda L: L.nonzero(L.ones(3)),
    "unique": lambda L: L.unique(L.ones(3)), "bincount": lambda L: L.bincount(L.tensor([1, 2])),
    "histc": lambda L: L.histc(L.ones(3)), "fftfreq": lambda L: L.fft.fftfreq(4),
    "searchsorted": lambda L: L.searchsorted(L.ones(2), L.ones(2)),
    # in place by the user: counted
    "normal_": lambda L: L.zeros(3).normal_(), "add_": lambda L: L.ones(3).add_(1).add_(1),
    "view_then_add_": lambda L: L.ones(3)[None].add_(1),
}


@pytest.mark.parametrize("case", sorted(FRESH))
def test_fresh_result_versions(case: str) -> None:
    assert FRESH[case](ember)._version == FRESH[case](torch)._version


def test_modified_message_counts_from_a_factory() -> None:
    def message(L: Any) -> str:
        x = L.zeros(2, requires_grad=True)
        y = L.zeros(2).index_select(0, L.tensor([0, 1]))  # saved by mul, then changed
        z = x * y
        y.add_(1)
        with pytest.raises(RuntimeError) as info:
            z.sum().backward()
        return str(info.value).replace("torch.", "")
    assert message(ember) == message(torch)
