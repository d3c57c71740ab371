"""``differentiable=True``: the step is recorded by autograd (torch's _use_grad_for_differentiable),
so a loss of the stepped parameter differentiates back to the parameter before the step and to its
gradient (through the state the step updated). Each case takes torch's gradients as the reference, the way
torch's own optimizer tests gradcheck the step (a non-leaf parameter, a gradient that requires grad)."""

from __future__ import annotations

from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")

CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.1, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.2, "maximize": True}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.1, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.1, "weight_decay": 0.1, "amsgrad": True, "maximize": True}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.1, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True}),
    ("RMSprop", {"lr": 0.01}),
    ("Rprop", {"lr": 0.1}),
    ("Adadelta", {"lr": 0.5, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.1, "t0": 1}),
    ("RAdam", {"lr": 0.1, "weight_decay": 0.1}),
]


def _grads(L: Any, name: str, kw: dict[str, Any]) -> list[list[float]]:
    p0 = L.tensor([0.5, -1.0, 2.0, 0.25], dtype=L.float64, requires_grad=True)
    grad = L.tensor([0.3, -0.2, 0.1, 0.4], dtype=L.float64, requires_grad=True)
    p = p0.clone()
    opt = getattr(L.optim, name)([p], differentiable=True, **kw)
    p.grad = grad
    opt.step()  # one step: a second modifies in place the state the first one's graph saved
    loss = (p * p).sum()  # (torch's own graph refuses a loss of its state: saved tensors it then modified)
    return [t.tolist() for t in L.autograd.grad(loss, [p0, grad], allow_unused=True) if t is not None]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{'-'.join(k)}" for n, k in CASES])
def test_step_differentiates_as_torch(name: str, kw: dict[str, Any]) -> None:
    want, got = _grads(torch, name, kw), _grads(ember, name, kw)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == pytest.approx(w, rel=1e-6, abs=1e-12)


def test_default_step_records_nothing() -> None:
    p = ember.tensor([1.0, 2.0], requires_grad=True)
    p.grad = ember.tensor([1.0, 1.0])
    ember.optim.SGD([p], lr=0.1, momentum=0.9).step()
    assert p.grad_fn is None and p.is_leaf and p.tolist() == pytest.approx([0.9, 1.9])
