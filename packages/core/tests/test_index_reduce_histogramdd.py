"""torch.index_reduce (function, method, in-place; prod / mean / amax / amin, include_self,
gradients) and torch.histogramdd against PyTorch, with their errors."""

from __future__ import annotations

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")


def _same_error(fe, ft) -> None:
    with pytest.raises(Exception) as et:
        ft()
    with pytest.raises(type(et.value)) as ee:
        fe()
    assert str(ee.value) == str(et.value)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_index_reduce_values(reduce: str, include_self: bool, dim: int, dtype: str) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 4, (5, 4, 3)).astype(dtype)
    d = dim % 3
    n = 6
    sshape = list(x.shape)
    sshape[d] = n
    s = rng.integers(-3, 4, sshape).astype(dtype)
    idx = rng.integers(0, x.shape[d], n)
    want = torch.tensor(x).index_reduce(dim, torch.tensor(idx), torch.tensor(s), reduce, include_self=include_self)
    got = ember.tensor(x).index_reduce(dim, ember.tensor(idx), ember.tensor(s), reduce, include_self=include_self)
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    got2 = ember.index_reduce(ember.tensor(x), dim, ember.tensor(idx).int(), ember.tensor(s), reduce,
                              include_self=include_self)
    np.testing.assert_allclose(got2.numpy(), want.numpy(), rtol=1e-6)
    e = ember.tensor(x)
    r = e.index_reduce_(dim, ember.tensor(idx), ember.tensor(s), reduce, include_self=include_self)
    assert r is e
    np.testing.assert_allclose(e.numpy(), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_grad(reduce: str) -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 2, (4, 3))
    s = rng.uniform(0.5, 2, (5, 3))
    idx = np.array([0, 2, 0, 3, 2])
    grads = []
    for lib in (torch, ember):
        xt, st = lib.tensor(x, requires_grad=True), lib.tensor(s, requires_grad=True)
        y = xt.index_reduce(0, lib.tensor(idx), st, reduce)
        (y * lib.tensor(np.arange(12.0).reshape(4, 3))).sum().backward()
        grads.append((xt.grad.numpy(), st.grad.numpy()))
    for a, b in zip(grads[1], grads[0]):
        np.testing.assert_allclose(a, b, rtol=1e-10)


@pytest.mark.parametrize("call", [
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0, 4]), L.ones(2, 3), "sum"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0.0, 4.0]), L.ones(2, 3), "prod"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([[0, 4]]), L.ones(2, 3), "prod"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0, 4]), L.ones(2, 3, dtype=L.float64), "prod"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0, 4, 1]), L.ones(2, 3), "prod"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0, 5]), L.ones(2, 3), "prod"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0, -1]), L.ones(2, 3), "prod"),
    lambda L: L.ones(5, 3).index_reduce(2, L.tensor([0, 4]), L.ones(2, 3), "prod"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0, 4]), L.ones(2, 2), "prod"),
])
def test_index_reduce_errors(call) -> None:
    _same_error(lambda: call(ember), lambda: call(torch))


def _hist(lib, x, **kw):
    r = lib.histogramdd(lib.tensor(x), **kw)
    return r.hist.numpy(), [e.numpy() for e in r.bin_edges]


@pytest.mark.parametrize("kw", [
    {"bins": 3},
    {"bins": [2, 5]},
    {"bins": [4, 3], "range": [0.0, 1.0, -1.0, 2.0]},
    {"bins": 3, "density": True},
    {"bins": 4, "weight": "w"},
    {"bins": [np.array([0.0, 0.5, 1.0]), np.array([-2.0, 0.0, 0.3, 3.0])]},
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogramdd(kw: dict, dtype: str) -> None:
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 2, (40, 2)).astype(dtype)
    x[0] = [1.0, 2.0]  # on an edge
    res = []
    for lib in (torch, ember):
        k = dict(kw)
        if k.get("weight") == "w":
            k["weight"] = lib.tensor(np.linspace(0, 1, 40).astype(dtype))
        if isinstance(k["bins"], list) and isinstance(k["bins"][0], np.ndarray):
            k["bins"] = [lib.tensor(b.astype(dtype)) for b in k["bins"]]
        res.append(_hist(lib, x, **k))
    (ht, et), (he, ee) = res
    np.testing.assert_allclose(he, ht, rtol=1e-6)
    for a, b in zip(ee, et):
        np.testing.assert_allclose(a, b, rtol=1e-7)


def test_histogramdd_3d_and_empty() -> None:
    x = np.random.default_rng(3).standard_normal((2, 10, 3))
    a, b = _hist(ember, x, bins=[2, 3, 4]), _hist(torch, x, bins=[2, 3, 4])
    np.testing.assert_allclose(a[0], b[0])
    a, b = _hist(ember, np.zeros((0, 2)), bins=2), _hist(torch, np.zeros((0, 2)), bins=2)
    np.testing.assert_allclose(a[0], b[0])
    np.testing.assert_allclose(a[1][0], b[1][0])


@pytest.mark.parametrize("call", [
    lambda L: L.histogramdd(L.zeros(4, 2), bins=[3]),
    lambda L: L.histogramdd(L.zeros(4, 2), bins=0),
    lambda L: L.histogramdd(L.zeros(4, 2, dtype=L.int64), bins=2),
    lambda L: L.histogramdd(L.zeros(4, 2), bins=2, range=[0.0, 1.0]),
    lambda L: L.histogramdd(L.zeros(4, 2), bins=2, range=[1.0, 0.0, 0.0, 1.0]),
    lambda L: L.histogramdd(L.zeros(4, 2), bins=2, weight=L.ones(3)),
    lambda L: L.histogramdd(L.tensor([[0.0, 1.0], [1.0, float("inf")]]), bins=2),
    lambda L: L.histogramdd(L.zeros(3), bins=2),
])
def test_histogramdd_errors(call) -> None:
    _same_error(lambda: call(ember), lambda: call(torch))
