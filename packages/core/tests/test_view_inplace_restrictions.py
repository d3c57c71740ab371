"""Autograd's refusals of in-place ops on views, word for word as PyTorch's: pieces of split /
chunk / unbind (one node stands for all of them, so rewriting one piece's history is refused),
views made in no_grad mode modified with grad mode on, and views of either. Each case runs the
same calls on ember and on torch and compares the outcome (ok, or the error's type and text)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")


def _outcome(fn: Callable[[], Any]) -> str:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 -- the outcome compared is the exception itself
        return f"{type(e).__name__}: {e}"
    return "ok"


def _setitem(t: Any, value: float) -> None:
    t[0] = value


# (name, build): build(L, x, y, z) -> the call whose outcome is compared; x is a leaf that requires
# grad, y = x * 2 (a non-leaf), z a plain tensor. Views in no_grad mode are made by build itself.
def _nograd(L: Any, make: Callable[[], Any]) -> Any:
    with L.no_grad():
        return make()


CASES: list[tuple[str, Callable[..., Callable[[], Any]]]] = [
    ("split add_", lambda L, x, y, z: lambda: y.split(2)[0].add_(1)),
    ("split.sizes add_", lambda L, x, y, z: lambda: y.split([1, 3])[1].add_(1)),
    ("split_with_sizes mul_", lambda L, x, y, z: lambda: y.split_with_sizes([1, 3])[1].mul_(2)),
    ("chunk zero_", lambda L, x, y, z: lambda: y.chunk(2)[1].zero_()),
    ("chunk copy_", lambda L, x, y, z: lambda: y.chunk(2)[1].copy_(L.zeros(2, 3))),
    ("unbind mul_", lambda L, x, y, z: lambda: y.unbind(0)[1].mul_(2)),
    ("function split add_", lambda L, x, y, z: lambda: L.split(y, 2)[0].add_(1)),
    ("function unbind add_", lambda L, x, y, z: lambda: L.unbind(y)[0].add_(1)),
    ("leaf split add_", lambda L, x, y, z: lambda: x.split(2)[0].add_(1)),
    ("view of a piece add_", lambda L, x, y, z: lambda: y.split(2)[0].view(-1).add_(1)),
    ("diagonal of a piece add_", lambda L, x, y, z: lambda: y.split(2)[0].diagonal().add_(1)),
    ("setitem on a piece", lambda L, x, y, z: lambda: _setitem(y.unbind(0)[0], 5.0)),
    ("t_ on a piece", lambda L, x, y, z: lambda: y.split(2)[0].t_()),
    ("unsqueeze_ on a piece", lambda L, x, y, z: lambda: y.split(2)[0].unsqueeze_(0)),
    ("as_strided_ on a piece", lambda L, x, y, z: lambda: y.split(2)[0].as_strided_((2,), (1,))),
    ("plain split add_ a grad operand", lambda L, x, y, z: lambda: z.split(2)[0].add_(x[:2])),
    ("plain chunk add_ a grad operand", lambda L, x, y, z: lambda: z.chunk(2)[0].add_(x[:2])),
    ("view of plain piece add_ a grad operand", lambda L, x, y, z: lambda: z.split(2)[1][0].add_(x[0])),
    ("plain split add_", lambda L, x, y, z: lambda: z.split(2)[0].add_(1)),
    ("under no_grad", lambda L, x, y, z: lambda: _nograd(L, lambda: y.split(2)[0].add_(1))),
    ("detached piece", lambda L, x, y, z: lambda: y.unbind(0)[0].detach().mul_(2)),
    (".data of a piece", lambda L, x, y, z: lambda: y.unbind(0)[0].data.add_(1)),
    ("tensor_split add_", lambda L, x, y, z: lambda: y.tensor_split(2)[0].add_(1)),
    ("hsplit add_", lambda L, x, y, z: lambda: y.hsplit(3)[0].add_(1)),
    ("unsafe_split add_", lambda L, x, y, z: lambda: y.unsafe_split(2)[0].add_(1)),
    ("unsafe_chunk add_", lambda L, x, y, z: lambda: y.unsafe_chunk(2)[0].add_(1)),
    ("nograd view of a leaf add_", lambda L, x, y, z: (lambda v: lambda: v.add_(1))(_nograd(L, lambda: x[0]))),
    ("nograd split of y add_", lambda L, x, y, z: (lambda v: lambda: v[0].add_(1))(_nograd(L, lambda: y.split(2)))),
    ("nograd unbind of y add_", lambda L, x, y, z: (lambda v: lambda: v[0].add_(1))(_nograd(L, lambda: y.unbind(0)))),
    ("nograd plain view add_ a grad operand",
     lambda L, x, y, z: (lambda v: lambda: v.add_(x[:2]))(_nograd(L, lambda: z[0:2]))),
    ("nograd plain view add_", lambda L, x, y, z: (lambda v: lambda: v.add_(1))(_nograd(L, lambda: z[0:2]))),
    ("nograd view modified under no_grad",
     lambda L, x, y, z: (lambda v: lambda: _nograd(L, lambda: v.add_(1)))(_nograd(L, lambda: y[0]))),
]


@pytest.mark.parametrize("name,build", CASES, ids=[c[0] for c in CASES])
def test_inplace_on_restricted_view(name: str, build: Callable[..., Callable[[], Any]]) -> None:
    outcomes = []
    for L in (ember, torch):
        x = L.randn(4, 3, requires_grad=True)
        outcomes.append(_outcome(build(L, x, x * 2, L.randn(4, 3))))
    assert outcomes[0] == outcomes[1]


def test_pieces_of_split_still_differentiate() -> None:
    """The pieces take part in autograd as before: gradients through all of them, out of place."""
    grads = []
    for L in (ember, torch):
        x = L.arange(12.0).reshape(4, 3).requires_grad_()
        parts = (x * 2).split(2)
        (parts[0].sum() * 3 + (parts[1] ** 2).sum()).backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


def test_base_made_to_require_grad_after_the_split() -> None:
    outcomes = []
    for L in (ember, torch):
        z = L.randn(4, 3)
        piece = z.split(2)[0]
        z.requires_grad_()
        outcomes.append(_outcome(lambda: piece.add_(1)))
    assert outcomes[0] == outcomes[1]


def _nograd_view_facts(L: Any) -> list[Any]:
    """PyTorch's rule for a view made in no_grad mode: it requires grad while its base does, is a leaf
    without an accumulator (gradients through it reach nobody) and follows its base's flag later."""
    x = L.ones(3, requires_grad=True)
    with L.no_grad():
        v, vv, d = x[:2], x[:2][:1], x.detach()[:2]
        text = repr(v)
    facts: list[Any] = [v.requires_grad, v.is_leaf, v.grad_fn is None, vv.requires_grad, d.requires_grad, text]
    s = (v * 3).sum()
    facts += [s.requires_grad, _outcome(s.backward), v.grad, x.grad]
    w = v[:1]  # a view of it in grad mode records a graph
    facts += [w.requires_grad, w.grad_fn is not None, _outcome(lambda: w.add_(1))]
    x.requires_grad_(False)
    facts.append(v.requires_grad)
    y = L.ones(3)
    with L.no_grad():
        vy = y[:2]
    y.requires_grad_(True)
    facts.append(vy.requires_grad)
    return facts


def test_nograd_view_requires_grad_as_its_base() -> None:
    assert _nograd_view_facts(ember) == _nograd_view_facts(torch)
