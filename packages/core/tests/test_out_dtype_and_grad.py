"""out= corner cases against PyTorch: a reduction's dtype= with an out= of another dtype, out=
tensors that require grad, the linalg kernels' out=, and the argument parser's messages."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")


def outcome(fn: Callable[[Any], Any], lib: Any) -> tuple:
    """(kind, detail) of fn(lib): the exception's type and message, or the result's dtype/values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(lib)
        except Exception as e:  # noqa: BLE001 - the outcome is compared
            return type(e).__name__, str(e).replace("torch.", "").replace("ember.", "")
    rs = r if isinstance(r, tuple) else (r,)
    return "ok", tuple((str(t.dtype).split(".")[-1], t.tolist()) for t in rs)


def same(fn: Callable[[Any], Any]) -> None:
    assert outcome(fn, ember) == outcome(fn, torch)


REDUCTIONS = ["sum", "mean", "prod", "nansum", "nanmean"]
PAIRS = [("float64", "float32"), ("float32", "float64"), ("int32", "int64"), ("float16", "float32"),
         ("float64", "float64"), ("complex64", "float32"), ("int32", "int32")]


@pytest.mark.parametrize("x_dtype", ["float32", "int64", "float16", "bool"])
@pytest.mark.parametrize("dtype, out_dtype", PAIRS)
@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dims", [(0,), ([0, 1],), (), (7,)], ids=["dim0", "dims", "nodim", "baddim"])
def test_reduction_dtype_with_out(name: str, dtype: str, out_dtype: str, x_dtype: str, dims: tuple) -> None:
    if (name == "prod" and dims == ([0, 1],)) or (name in ("sum", "prod") and dims == ()):
        return  # prod takes one int dim; sum and prod have no out= overload without a dim

    def call(L: Any) -> Any:
        x = L.ones(2, 3, dtype=getattr(L, x_dtype))
        return getattr(L, name)(x, *dims, dtype=getattr(L, dtype), out=L.empty(0, dtype=getattr(L, out_dtype)))
    same(call)


@pytest.mark.parametrize("case", [
    lambda L: L.mean(L.ones(3), out=L.empty(0, dtype=L.int64)),
    lambda L: L.mean(L.ones(3, dtype=L.int64), out=L.empty(0)),
    lambda L: L.mean(L.ones(3), None, out=L.empty(0, dtype=L.int64)),
    lambda L: L.mean(L.ones(3, dtype=L.complex64), out=L.empty(0)),
    lambda L: L.mean(L.ones(3), dtype=L.int32),
    lambda L: L.nanmean(L.ones(3), dtype=L.int32),
    lambda L: L.nansum(L.ones(3), dtype=L.int32, out=L.empty(0, dtype=L.int32)),
    lambda L: L.sum(L.ones(3), 0, dtype=L.uint16, out=L.empty(0, dtype=L.int64)),
    lambda L: L.sum(L.ones(3), 0, dtype=L.uint64, out=L.empty(0, dtype=L.int64)),
], ids=lambda c: "")
def test_mean_and_sum_out_messages(case: Callable[[Any], Any]) -> None:
    same(case)


def _rg(L: Any, *shape: int, dtype: str = "float32") -> Any:
    return L.empty(*shape, dtype=getattr(L, dtype)).requires_grad_()


OUT_REQUIRES_GRAD = {
    "add": lambda L: L.add(L.ones(2), L.ones(2), out=_rg(L, 2)),
    "add-nonleaf": lambda L: L.add(L.ones(2), L.ones(2), out=_rg(L, 2) * 1),
    "add-resize": lambda L: L.add(L.ones(2), L.ones(2), out=_rg(L, 5)),
    "sum": lambda L: L.sum(L.ones(2, 3), 0, out=_rg(L, 3)),
    "mean-nodim": lambda L: L.mean(L.ones(2, 3), out=_rg(L)),
    "max-dim": lambda L: L.max(L.ones(2, 3), 0, out=(_rg(L, 3), L.empty(3, dtype=L.int64))),
    "cat": lambda L: L.cat([L.ones(2), L.ones(2)], out=_rg(L, 4)),
    "zeros": lambda L: L.zeros(3, out=_rg(L, 2)),
    "empty": lambda L: L.empty(2, out=_rg(L, 2)),
    "randn": lambda L: L.randn(2, out=_rg(L, 2)),
    "arange": lambda L: L.arange(3, out=_rg(L, 3)),
    "range": lambda L: L.range(0, 2, out=_rg(L, 3)),
    "floor_divide": lambda L: L.floor_divide(L.ones(2), L.ones(2), out=_rg(L, 2)),
    "bernoulli": lambda L: L.bernoulli(L.ones(2) / 2, out=_rg(L, 2)),
    "normal": lambda L: L.normal(L.ones(2), 1.0, out=_rg(L, 2)),
    "eq": lambda L: L.eq(L.ones(2), L.ones(2), out=_rg(L, 2)),
    "histc": lambda L: L.histc(L.ones(2), bins=2, out=_rg(L, 2)),
    "linalg.inv": lambda L: L.linalg.inv(L.eye(2), out=_rg(L, 2, 2)),
    "no_grad": lambda L: (L.set_grad_enabled(False), L.add(L.ones(2), L.ones(2), out=_rg(L, 2)))[1],
}


@pytest.mark.parametrize("name", list(OUT_REQUIRES_GRAD))
def test_out_that_requires_grad(name: str) -> None:
    try:
        e, t = (outcome(OUT_REQUIRES_GRAD[name], L) for L in (ember, torch))
    finally:
        ember.set_grad_enabled(True)
        torch.set_grad_enabled(True)
    if name in ("randn", "bernoulli", "normal", "empty"):  # values are random or uninitialised
        e, t = (o if o[0] != "ok" else ("ok",) for o in (e, t))
    assert e == t


LINALG_OUT = {
    "inv": lambda L, o: L.linalg.inv(2 * L.eye(3), out=o),
    "det": lambda L, o: L.linalg.det(2 * L.eye(3), out=o),
    "solve": lambda L, o: L.linalg.solve(2 * L.eye(3), L.ones(3, 2), out=o),
    "solve-left": lambda L, o: L.linalg.solve(2 * L.eye(3), L.ones(2, 3), left=False, out=o),
    "cholesky": lambda L, o: L.linalg.cholesky(2 * L.eye(3), upper=True, out=o),
    "svdvals": lambda L, o: L.linalg.svdvals(2 * L.eye(3), out=o),
    "vector_norm": lambda L, o: L.linalg.vector_norm(L.ones(3, 2), 1, dim=0, out=o),
    "vector_norm-dtype": lambda L, o: L.linalg.vector_norm(L.ones(3), dtype=L.float64, out=o),
    "aminmax": lambda L, o: L.aminmax(L.arange(6.0).view(2, 3), dim=1, out=(o, L.empty(0))),
    "index_copy": lambda L, o: L.index_copy(L.zeros(3, 2), 0, L.tensor([2]), L.ones(1, 2), out=o),
}


@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("shape", [(0,), (5,)], ids=["empty", "resized"])
@pytest.mark.parametrize("name", list(LINALG_OUT))
def test_linalg_and_friends_take_out(name: str, shape: tuple, out_dtype: str) -> None:
    outs = {}

    def call(L: Any) -> Any:
        outs[L] = L.empty(shape, dtype=getattr(L, out_dtype))
        return LINALG_OUT[name](L, outs[L])
    same(call)
    if outcome(call, ember)[0] == "ok":
        r = call(ember)
        assert (r[0] if isinstance(r, tuple) else r) is outs[ember]


def test_linalg_out_refuses_grad() -> None:
    same(lambda L: L.linalg.det(L.eye(2).requires_grad_(), out=L.empty(0)))
    same(lambda L: L.linalg.vector_norm(L.ones(2), out=L.empty(0).requires_grad_()))


PARSER = {
    "defaults": lambda L: L.bernoulli(L.ones(2), 0.5, out=L.ones(2)),
    "normal-list": lambda L: L.normal(L.ones(2), 1.0, 2, 3),
    "alias-name": lambda L: L.arccos(L.ones(2), 1, 2),
    "alias-missing": lambda L: L.arctan2(L.ones(2)),
    "one-positional": lambda L: L.abs(L.ones(2), 1),
    "from-to": lambda L: L.amax(L.ones(2), 0, False, 1),
    "missing": lambda L: L.index_select(L.ones(2), 0),
    "optional-without-default": lambda L: L.sum(L.ones(2), dtype=L.float64, out=L.empty((), dtype=L.float64)),
    "several-missing": lambda L: L.convolution(L.ones(1, 1, 3), L.ones(1, 1, 1)),
    "no-dim-out": lambda L: L.sum(L.ones(2), out=L.empty(())),
}


@pytest.mark.parametrize("name", list(PARSER))
def test_parser_messages(name: str) -> None:
    e, t = outcome(PARSER[name], ember), outcome(PARSER[name], torch)
    assert e[0] == t[0] == "TypeError"
    # overload lists may differ in order (and torch lists hidden overloads): compare the lines as sets
    assert set(e[1].splitlines()) == set(t[1].splitlines()), (e[1], t[1])


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8", "bool"])
@pytest.mark.parametrize("call", ["clamp_", "clamp_min_", "clamp_max_", "clip_", "clamp_min-out", "clamp_max-tensor-out"])
def test_clamp_integer_casts(dtype: str, call: str) -> None:
    """aten's clamp_ names the tensor's C type ("long int") where the Tensor-bound forms name the dtype;
    clamp_min / clamp_max take out= (their Scalar form's dtype check is exact, the Tensor form's casts)."""
    def run(L: Any) -> Any:
        x = L.ones(3, dtype=getattr(L, dtype))
        if call == "clamp_min-out":
            return L.clamp_min(x, 0.5, out=L.empty(3, dtype=getattr(L, dtype)))
        if call == "clamp_max-tensor-out":
            return L.clamp_max(x, L.tensor(0.5), out=L.empty(3, dtype=L.float64))
        return getattr(x, call)(0.5)
    e, t = outcome(run, ember), outcome(run, torch)
    assert e == t
