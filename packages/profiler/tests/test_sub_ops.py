"""The sub-ops ember's ops call as aten's do (issue 18): each case's op events, with the op each
one nests in, against PyTorch 2.13's -- mm/addmm's resolve_conj by operand layout, the reductions'
as_strided and fill_, expand's as_strided, the *_like factories, detach, the mean's div_, mse_loss's
buffer and backward, relu's clamp_min and SGD's step."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402

# (call, caller) pairs aten makes for work ember does not do: nansum's result comes through the
# dispatcher's empty in aten; an integer clamp_min's `to` of its bound returns the bound itself
ATEN_ONLY_UNDER = {("aten::empty", "aten::nansum"), ("aten::to", "aten::clamp_min")}


def _tree(lib: Any, case: Callable[[Any], Callable[[], Any]]) -> Counter[tuple[str, str | None]]:
    run = case(lib)
    with lib.profiler.profile() as p:
        run()
    out: Counter[tuple[str, str | None]] = Counter()
    for e in p.events():
        chain = [e]
        while chain[-1].cpu_parent is not None:
            chain.append(chain[-1].cpu_parent)
        if (e.name, chain[1].name if len(chain) > 1 else None) in ATEN_ONLY_UNDER:
            continue
        out[(e.name, e.cpu_parent.name if e.cpu_parent else None)] += 1
    return out


def _mats(lib: Any, m: int, k: int, n: int, a_col: bool, b_col: bool) -> tuple[Any, Any]:
    lib.manual_seed(0)
    a = lib.randn(k, m).t() if a_col else lib.randn(m, k)
    b = lib.randn(n, k).t() if b_col else lib.randn(k, n)
    return a, b


def _mm(m: int, k: int, n: int, a_col: bool, b_col: bool) -> Callable[[Any], Callable[[], Any]]:
    def case(lib: Any) -> Callable[[], Any]:
        a, b = _mats(lib, m, k, n, a_col, b_col)
        return lambda: lib.mm(a, b)
    return case


def _addmm(lib: Any) -> Callable[[], Any]:
    a, b = _mats(lib, 5, 3, 4, False, True)
    bias = lib.ones(4)
    return lambda: lib.addmm(bias, a, b)


def _mm_empty(lib: Any) -> Callable[[], Any]:
    a, b = lib.ones(3, 0), lib.ones(0, 4)
    return lambda: lib.mm(a, b)


def _x(lib: Any) -> Any:
    lib.manual_seed(0)
    return lib.randn(4, 5)


def _mse_backward(lib: Any) -> Callable[[], Any]:
    x = _x(lib).requires_grad_()
    y = _x(lib)

    def run() -> None:
        lib.nn.functional.mse_loss(x, y).backward()
    return run


def _mse_backward_of(reduction: str) -> Callable[[Any], Callable[[], Any]]:
    def case(lib: Any) -> Callable[[], Any]:
        x, y = _x(lib).requires_grad_(), _x(lib)
        return lambda: lib.nn.functional.mse_loss(x, y, reduction=reduction).sum().backward()
    return case


def _mse_of(reduction: str) -> Callable[[Any], Callable[[], Any]]:
    def case(lib: Any) -> Callable[[], Any]:
        x, y = _x(lib), _x(lib)
        return lambda: lib.nn.functional.mse_loss(x, y, reduction=reduction)
    return case


def _sgd(**kw: Any) -> Callable[[Any], Callable[[], Any]]:
    def case(lib: Any) -> Callable[[], Any]:
        ps = [lib.nn.Parameter(lib.ones(3)) for _ in range(2)]
        for p in ps:
            p.grad = lib.ones(3)
        opt = lib.optim.SGD(ps, lr=0.1, **kw)
        return opt.step
    return case


CASES: dict[str, Callable[[Any], Callable[[], Any]]] = {
    "mm row row": _mm(5, 3, 4, False, False), "mm row col": _mm(5, 3, 4, False, True),
    "mm col row": _mm(5, 3, 4, True, False), "mm col col": _mm(5, 3, 4, True, True),
    "mm n=1": _mm(5, 3, 1, False, False), "mm n=1 col col": _mm(5, 3, 1, True, True), "mm m=1": _mm(1, 3, 4, False, False),
    "mm k=0": _mm_empty, "addmm": _addmm,
    "ones_like": lambda lib: (lambda x: lambda: lib.ones_like(x))(_x(lib)),
    "ones_like of a transpose": lambda lib: (lambda x: lambda: lib.ones_like(x.t()))(_x(lib)),
    "zeros_like": lambda lib: (lambda x: lambda: lib.zeros_like(x))(_x(lib)),
    "zeros_like contiguous": lambda lib: (lambda x: lambda: lib.zeros_like(x.t(), memory_format=lib.contiguous_format))(
        _x(lib)),
    "full_like": lambda lib: (lambda x: lambda: lib.full_like(x, 2.0))(_x(lib)),
    "empty_like": lambda lib: (lambda x: lambda: lib.empty_like(x))(_x(lib)),
    "sum": lambda lib: (lambda x: lambda: x.sum())(_x(lib)),
    "sum dim": lambda lib: (lambda x: lambda: x.sum(0))(_x(lib)),
    "sum keepdim": lambda lib: (lambda x: lambda: x.sum(0, keepdim=True))(_x(lib)),
    "mean": lambda lib: (lambda x: lambda: x.mean())(_x(lib)),
    "mean dim": lambda lib: (lambda x: lambda: x.mean(0))(_x(lib)),
    "mean float64": lambda lib: (lambda x: lambda: x.mean())(_x(lib).double()),
    "mean complex": lambda lib: (lambda x: lambda: x.mean(1))(lib.ones(3, 2, dtype=lib.complex64)),
    "mean out=": lambda lib: (lambda x, o: lambda: lib.mean(x, 0, out=o))(_x(lib), lib.empty(5)),
    "to": lambda lib: (lambda x: lambda: x.to(lib.float64))(_x(lib)),
    "to of a transpose": lambda lib: (lambda x: lambda: x.t().to(lib.float64))(_x(lib)),
    "prod dim": lambda lib: (lambda x: lambda: x.prod(0))(_x(lib)),
    "amax dim": lambda lib: (lambda x: lambda: x.amax(0))(_x(lib)),
    "all": lambda lib: (lambda x: lambda: x.all())(_x(lib) > 0),
    "any dim": lambda lib: (lambda x: lambda: x.any(0))(_x(lib) > 0),
    "nansum": lambda lib: (lambda x: lambda: x.nansum())(_x(lib)),
    "sum of ints": lambda lib: (lambda x: lambda: x.sum())(lib.arange(6)),
    "expand": lambda lib: (lambda x: lambda: x.expand(4, 5))(lib.ones(1, 5)),
    "detach": lambda lib: (lambda x: lambda: x.detach())(_x(lib)),
    "mse_loss backward": _mse_backward,
    "mse_loss sum backward": _mse_backward_of("sum"), "mse_loss none backward": _mse_backward_of("none"),
    "mse_loss": _mse_of("mean"),
    "mse_loss of transposes": lambda lib: (lambda x: lambda: lib.nn.functional.mse_loss(x.t(), x.t()))(_x(lib)),
    "mse_loss of slices": lambda lib: (lambda x: lambda: lib.nn.functional.mse_loss(x[:, :2], x[:, 2:4]))(_x(lib)), "mse_loss sum": _mse_of("sum"), "mse_loss none": _mse_of("none"),
    "relu": lambda lib: (lambda x: lambda: lib.relu(x))(_x(lib)),
    "relu_": lambda lib: (lambda x: lambda: x.relu_())(_x(lib)),
    "nn.ReLU": lambda lib: (lambda x, m: lambda: m(x))(_x(lib), lib.nn.ReLU()),
    "relu of ints": lambda lib: (lambda x: lambda: lib.relu(x))(lib.arange(-3, 3)),
    "SGD default": _sgd(), "SGD fused": _sgd(fused=True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_sub_ops_match_torch(name: str) -> None:
    assert _tree(ember, CASES[name]) == _tree(torch, CASES[name])


# The calls ember makes only while a profiler records (the mean's count through `to`, the reduced
# mse_loss's result written through out=) give bitwise the results of the path without it.
SAME_RESULT = {
    "mean": lambda lib, x: x.mean(), "mean dim": lambda lib, x: x.mean(1, keepdim=True),
    "mean float64": lambda lib, x: x.double().mean(0), "mean complex": lambda lib, x: (x * 1j).mean(0),
    "mse_loss": lambda lib, x: lib.nn.functional.mse_loss(x, x.flip(0)),
    "mse_loss sum": lambda lib, x: lib.nn.functional.mse_loss(x, x.flip(0), reduction="sum"),
    "mse_loss float64": lambda lib, x: lib.nn.functional.mse_loss(x.double(), x.flip(0).double()),
}


@pytest.mark.parametrize("name", list(SAME_RESULT))
def test_profiled_results_are_bitwise_the_same(name: str) -> None:
    ember.manual_seed(0)
    x = ember.randn(37, 1001)
    plain = SAME_RESULT[name](ember, x)
    with ember.profiler.profile():
        recorded = SAME_RESULT[name](ember, x)
    assert recorded.dtype == plain.dtype and recorded.shape == plain.shape
    assert ember.equal(ember.view_as_real(recorded) if recorded.is_complex() else recorded,
                       ember.view_as_real(plain) if plain.is_complex() else plain)
