"""Gradients of the shape ops with Tensor[] inputs (cat, stack, ...) and Tensor[] results
(split, unbind, ...), compared with PyTorch. test_grad_parity.py only makes top-level tensor
arguments leaves, so list arguments and partly-used list results are covered here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402


def _pair(shapes: list[tuple], seed: int) -> tuple[list, list]:
    g = torch.Generator().manual_seed(seed)
    ts = [torch.randn(s, generator=g, dtype=torch.float64).requires_grad_(True) for s in shapes]
    es = [ember.tensor(t.detach().tolist(), dtype=ember.float64).reshape(tuple(t.shape)).requires_grad_(True)
          for t in ts]
    return ts, es


def _outputs(res: Any) -> list:
    return list(res) if isinstance(res, (tuple, list)) else [res]


LIST_IN: list[tuple[str, list[tuple], Callable[[Any, list], Any]]] = [
    ("cat-dim0", [(2, 3), (4, 3)], lambda L, xs: L.cat(xs, 0)),
    ("cat-dim1", [(2, 3), (2, 1), (2, 2)], lambda L, xs: L.cat(xs, 1)),
    ("cat-legacy-empty", [(0,), (2, 3)], lambda L, xs: L.cat(xs, 0)),
    ("concat", [(2, 3), (2, 3)], lambda L, xs: L.concat(xs, -1)),
    ("stack", [(2, 3), (2, 3)], lambda L, xs: L.stack(xs, 1)),
    ("hstack", [(3,), (2,)], lambda L, xs: L.hstack(xs)),
    ("hstack-2d", [(2, 3), (2, 1)], lambda L, xs: L.hstack(xs)),
    ("vstack", [(3,), (2, 3)], lambda L, xs: L.vstack(xs)),
    ("dstack", [(3,), (1, 3)], lambda L, xs: L.dstack(xs)),
    ("meshgrid-ij", [(3,), (4,)], lambda L, xs: L.meshgrid(xs, indexing="ij")),
    ("meshgrid-xy", [(3,), (4,), (2,)], lambda L, xs: L.meshgrid(*xs, indexing="xy")),
    ("broadcast", [(3, 1), (4,)], lambda L, xs: L.broadcast_tensors(*xs)),
    ("atleast_2d", [(), (3,)], lambda L, xs: L.atleast_2d(xs)),
    ("atleast_3d", [(3,), (2, 3)], lambda L, xs: L.atleast_3d(*xs)),
]

LIST_OUT: list[tuple[str, tuple, Callable[[Any, Any], Any], list[int]]] = [
    ("split-some", (5, 3), lambda L, x: L.split(x, 2), [0, 2]),
    ("split-sizes", (5, 3), lambda L, x: L.split(x, [1, 4], 0), [1]),
    ("split-with-sizes", (3, 5), lambda L, x: L.split_with_sizes(x, [2, 3], 1), [0, 1]),
    ("chunk", (5, 4), lambda L, x: L.chunk(x, 2, 1), [1]),
    ("tensor-split", (7, 2), lambda L, x: L.tensor_split(x, 3), [0, 2]),
    ("tensor-split-unsorted", (7, 2), lambda L, x: L.tensor_split(x, [4, 2]), [0, 2]),
    ("unbind", (3, 4), lambda L, x: L.unbind(x, 1), [1, 3]),
]


def _check(tres: Any, eres: Any, tleaves: list, eleaves: list, pick: list[int] | None, seed: int) -> None:
    touts, eouts = _outputs(tres), _outputs(eres)
    assert len(touts) == len(eouts)
    idx = range(len(touts)) if pick is None else pick
    g = torch.Generator().manual_seed(seed)
    gos = [torch.randn(touts[i].shape, generator=g, dtype=torch.float64) for i in idx]
    egos = [ember.tensor(go.tolist(), dtype=ember.float64).reshape(tuple(go.shape)) for go in gos]
    tg = torch.autograd.grad([touts[i] for i in idx], tleaves, gos, allow_unused=True)
    eg = ember.autograd.grad([eouts[i] for i in idx], eleaves, egos, allow_unused=True)
    for a, b in zip(tg, eg, strict=True):
        if a is None:
            assert b is None or not b.abs().sum().item()
            continue
        assert b is not None and tuple(b.shape) == tuple(a.shape)
        torch.testing.assert_close(torch.tensor(b.tolist(), dtype=torch.float64).reshape(a.shape), a)


@pytest.mark.parametrize("name, shapes, fn", LIST_IN, ids=[c[0] for c in LIST_IN])
def test_list_input_grad(name: str, shapes: list[tuple], fn: Callable) -> None:
    ts, es = _pair(shapes, 1)
    _check(fn(torch, ts), fn(ember, es), ts, es, None, 2)


@pytest.mark.parametrize("name, shape, fn, pick", LIST_OUT, ids=[c[0] for c in LIST_OUT])
def test_list_output_grad(name: str, shape: tuple, fn: Callable, pick: list[int]) -> None:
    ts, es = _pair([shape], 3)
    _check(fn(torch, ts[0]), fn(ember, es[0]), ts, es, pick, 4)


@pytest.mark.parametrize("name, shapes, fn", LIST_IN[:6], ids=[c[0] for c in LIST_IN[:6]])
def test_list_input_gradgradcheck(name: str, shapes: list[tuple], fn: Callable) -> None:
    _, es = _pair([s for s in shapes if s != (0,)], 5)

    def f(*xs: Any) -> Any:
        return fn(ember, list(xs))

    assert ember.autograd.gradcheck(f, tuple(es))
    assert ember.autograd.gradgradcheck(f, tuple(es))


@pytest.mark.parametrize("name, shape, fn, pick", LIST_OUT, ids=[c[0] for c in LIST_OUT])
def test_list_output_gradgradcheck(name: str, shape: tuple, fn: Callable, pick: list[int]) -> None:
    _, es = _pair([shape], 6)

    def f(x: Any) -> Any:
        outs = fn(ember, x)
        return tuple(outs[i] for i in pick)

    assert ember.autograd.gradcheck(f, tuple(es))
    assert ember.autograd.gradgradcheck(f, tuple(es))


def test_grad_fn_names() -> None:
    a, b = (ember.randn(2, 3, requires_grad=True) for _ in range(2))
    assert type(ember.cat([a, b]).grad_fn).__name__ == "CatBackward0"
    assert type(ember.stack([a, b]).grad_fn).__name__ == "StackBackward0"
    assert type(ember.split(a, 1)[0].grad_fn).__name__ == "SplitBackward0"
    assert type(ember.unbind(a)[0].grad_fn).__name__ == "UnbindBackward0"
    assert type(ember.sort(a).values.grad_fn).__name__ == "SortBackward0"


@pytest.mark.parametrize("op", ["broadcast_tensors", "meshgrid"])
def test_each_output_depends_on_its_own_input(op: str) -> None:
    """As aten's composites: an output whose input needs no gradient needs none, and one already of
    the broadcast shape is the input itself (no ExpandBackward0 node), as F.mse_loss's target is."""
    shapes = [(3,), (2, 3), (2, 3)] if op == "broadcast_tensors" else [(3,), (2,), (4,)]
    for L in (torch, ember):
        xs = [L.ones(*s, dtype=L.float64) for s in shapes]
        xs[0].requires_grad_(True)
        xs[1].requires_grad_(True)
        outs = getattr(L, op)(*xs)
        got = [(type(o.grad_fn).__name__ if o.grad_fn else None, o.requires_grad) for o in outs]
        if L is torch:
            want = got
        else:
            assert got == want, (op, got, want)
