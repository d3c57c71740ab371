"""ember.linalg.matrix_exp, householder_product / geqrf / orgqr / ormqr, ldl_factor / ldl_solve,
tensorinv / tensorsolve and the old top-level names (triangular_solve, cholesky, pinverse and the
ones PyTorch removed) against PyTorch: values, gradients and errors."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

import ember  # noqa: E402

DT = {"float32": (torch.float32, ember.float32), "float64": (torch.float64, ember.float64)}
TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-10)}
GTOL = {"float32": dict(rtol=2e-3, atol=2e-4), "float64": dict(rtol=1e-7, atol=1e-8)}


def pair(shape: tuple, dt: str = "float64", seed: int = 0, grad: bool = False, scale: float = 1.0) -> tuple:
    g = torch.Generator().manual_seed(seed)
    t = (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(DT[dt][0])
    e = ember.tensor(t.tolist(), dtype=DT[dt][1]) if t.numel() else ember.zeros(shape, dtype=DT[dt][1])
    if grad:
        t.requires_grad_(True)
        e.requires_grad_(True)
    return t, e


def to_t(e: Any) -> torch.Tensor:
    return torch.from_numpy(np.array(e.detach().numpy()))


def close(e: Any, t: torch.Tensor, dt: str = "float64", **kw: Any) -> None:
    torch.testing.assert_close(to_t(e), t.detach(), **{**TOL[dt], **kw})


def same_error(efn: Any, tfn: Any, exact: bool = True) -> None:
    with pytest.raises(Exception) as te:
        tfn()
    with pytest.raises(Exception) as ee:
        efn()
    base = next(c for c in te.type.__mro__ if c.__module__ == "builtins")
    assert isinstance(ee.value, base), (ee.value, te.value)
    if exact:
        assert str(ee.value) == str(te.value)
    else:  # long deprecation texts: the first sentence
        assert str(ee.value).split(".")[0] == str(te.value).split(".")[0]


# ------------------------------------------------------------------ matrix_exp

@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (5, 1, 1), (0, 0), (2, 0, 3, 3)])
@pytest.mark.parametrize("scale", [1e-3, 0.3, 1.0, 4.0, 12.0])
def test_matrix_exp_values(dt: str, shape: tuple, scale: float) -> None:
    t, e = pair(shape, dt, seed=1, scale=scale)
    r, tr = ember.linalg.matrix_exp(e), torch.linalg.matrix_exp(t)
    assert r.dtype == e.dtype and tuple(r.shape) == tuple(tr.shape)
    # relative to the result's size: both are accurate to a few ulps of ||exp(A)||
    big = float(tr.abs().max()) if tr.numel() else 1.0
    rtol = 1e-4 if dt == "float32" else 1e-11
    close(r, tr, dt, rtol=rtol, atol=rtol * big)
    close(e.matrix_exp(), tr, dt, rtol=rtol, atol=rtol * big)
    close(ember.matrix_exp(e), tr, dt, rtol=rtol, atol=rtol * big)


def test_matrix_exp_batch_of_mixed_norms() -> None:
    t = torch.stack([torch.eye(3) * 1e-4, torch.randn(3, 3, generator=torch.Generator().manual_seed(2)) * 30]).double()
    e = ember.tensor(t.tolist(), dtype=ember.float64)
    close(ember.linalg.matrix_exp(e), torch.linalg.matrix_exp(t), rtol=1e-10, atol=1e-10 * float(t.abs().max()))


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_matrix_exp_grad(dt: str, shape: tuple) -> None:
    t, e = pair(shape, dt, seed=3, grad=True, scale=0.7)
    w, we = pair(shape, dt, seed=4)
    eg = ember.autograd.grad((ember.linalg.matrix_exp(e) * we).sum(), [e])[0]
    tg = torch.autograd.grad((torch.linalg.matrix_exp(t) * w).sum(), [t])[0]
    close(eg, tg, dt, **GTOL[dt])


def test_matrix_exp_gradcheck_and_half() -> None:
    _, e = pair((2, 3, 3), seed=5, grad=True)
    assert ember.autograd.gradcheck(ember.linalg.matrix_exp, (e,))
    assert ember.autograd.gradgradcheck(ember.linalg.matrix_exp, (e,))
    t, eh = pair((3, 3), "float32", seed=6)
    r = ember.linalg.matrix_exp(eh.to(ember.bfloat16))
    assert r.dtype == ember.bfloat16
    # computed in float32 and rounded (PyTorch's own bfloat16 kernel overflows on this input)
    close(r.float(), torch.linalg.matrix_exp(t.bfloat16().float()).bfloat16().float(), "float32", rtol=2e-2,
          atol=2e-2)


# ------------------------------------------------------------------ householder / geqrf / ormqr

@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape,k", [((4, 4), 4), ((5, 3), 3), ((5, 3), 2), ((2, 6, 4), 4), ((3, 3), 0)])
def test_householder_product(dt: str, shape: tuple, k: int) -> None:
    t, e = pair(shape, dt, seed=7, grad=True)
    tt, et = pair(shape[:-2] + (k,), dt, seed=8, grad=True)
    r, tr = ember.linalg.householder_product(e, et), torch.linalg.householder_product(t, tt)
    close(r, tr, dt, rtol=1e-4 if dt == "float32" else 1e-9, atol=1e-4 if dt == "float32" else 1e-9)
    close(ember.orgqr(e, et), tr, dt, rtol=1e-4 if dt == "float32" else 1e-9, atol=1e-4 if dt == "float32" else 1e-9)
    with ember.no_grad():  # the no-gradient path
        close(ember.linalg.householder_product(e, et), tr, dt, rtol=1e-4 if dt == "float32" else 1e-9,
              atol=1e-4 if dt == "float32" else 1e-9)
    if k == 0:  # no reflectors: the identity, not connected to the inputs (as in PyTorch)
        return
    w, we = pair(tuple(tr.shape), dt, seed=9)
    eg = ember.autograd.grad((r * we).sum(), [e, et])
    tg = torch.autograd.grad((tr * w).sum(), [t, tt])
    for a, b in zip(eg, tg, strict=True):
        close(a, b, dt, rtol=2e-3 if dt == "float32" else 1e-7, atol=2e-3 if dt == "float32" else 1e-8)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
def test_geqrf_roundtrip(dt: str, shape: tuple) -> None:
    t, e = pair(shape, dt, seed=10)
    a, tau = ember.geqrf(e)
    ta, ttau = torch.geqrf(t)
    assert type(ember.geqrf(e)).__name__ == "geqrf"
    close(a, ta, dt, rtol=1e-4 if dt == "float32" else 1e-9, atol=1e-4 if dt == "float32" else 1e-9)
    close(tau, ttau, dt, rtol=1e-4 if dt == "float32" else 1e-9, atol=1e-4 if dt == "float32" else 1e-9)
    close(e.geqrf()[1], ttau, dt, rtol=1e-4 if dt == "float32" else 1e-9, atol=1e-4 if dt == "float32" else 1e-9)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("ishape,k,oshape", [((4, 3), 3, (4, 2)), ((3, 4), 3, (3, 3)), ((2, 5, 2), 2, (2, 5, 5))])
def test_ormqr(dt: str, left: bool, transpose: bool, ishape: tuple, k: int, oshape: tuple) -> None:
    if not left:
        oshape = oshape[:-2] + (oshape[-1], oshape[-2])
    t, e = pair(ishape, dt, seed=11, grad=True)
    tt, et = pair(ishape[:-2] + (k,), dt, seed=12, grad=True)
    to, eo = pair(oshape, dt, seed=13, grad=True)
    r = ember.ormqr(e, et, eo, left, transpose)
    tr = torch.ormqr(t, tt, to, left, transpose)
    tol = dict(rtol=1e-4, atol=1e-4) if dt == "float32" else dict(rtol=1e-9, atol=1e-9)
    close(r, tr, dt, **tol)
    close(e.ormqr(et, eo, left, transpose), tr, dt, **tol)
    eg = ember.autograd.grad((r * r).sum(), [e, et, eo])
    tg = torch.autograd.grad((tr * tr).sum(), [t, tt, to])
    for a, b in zip(eg, tg, strict=True):
        close(a, b, dt, rtol=2e-3 if dt == "float32" else 1e-7, atol=2e-3 if dt == "float32" else 1e-8)


# ------------------------------------------------------------------ ldl

@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (1, 1), (2, 0, 0)])
def test_ldl(dt: str, shape: tuple) -> None:
    t, _ = pair(shape, dt, seed=14)
    t = t + t.mT
    e = ember.tensor(t.tolist(), dtype=DT[dt][1]) if t.numel() else ember.zeros(shape, dtype=DT[dt][1])
    r, tr = ember.linalg.ldl_factor_ex(e), torch.linalg.ldl_factor_ex(t)
    close(r.LD, tr.LD, dt, rtol=1e-4 if dt == "float32" else 1e-9, atol=1e-4 if dt == "float32" else 1e-9)
    assert to_t(r.pivots).tolist() == tr.pivots.tolist() and to_t(r.info).tolist() == tr.info.tolist()
    tb, eb = pair(shape[:-1] + (2,), dt, seed=15)
    x = ember.linalg.ldl_solve(*ember.linalg.ldl_factor(e), eb)
    close(x, torch.linalg.ldl_solve(*torch.linalg.ldl_factor(t), tb), dt, rtol=1e-3 if dt == "float32" else 1e-8,
          atol=1e-3 if dt == "float32" else 1e-8)


# ------------------------------------------------------------------ tensorinv / tensorsolve

def test_tensorinv_tensorsolve() -> None:
    t, e = pair((4, 6, 8, 3), seed=16, grad=True)
    r, tr = ember.linalg.tensorinv(e, ind=2), torch.linalg.tensorinv(t, ind=2)
    close(r, tr, rtol=1e-8, atol=1e-8)
    eg = ember.autograd.grad(r.sum(), [e])[0]
    tg = torch.autograd.grad(tr.sum(), [t])[0]
    close(eg, tg, rtol=1e-6, atol=1e-6)
    t, e = pair((2, 3, 6), seed=17)
    tb, eb = pair((2, 3), seed=18)
    close(ember.linalg.tensorsolve(e, eb), torch.linalg.tensorsolve(t, tb))
    t, e = pair((6, 4, 4, 6), seed=19)
    tb, eb = pair((6, 4), seed=20)
    close(ember.linalg.tensorsolve(e, eb, dims=(1,)), torch.linalg.tensorsolve(t, tb, dims=(1,)), rtol=1e-7,
          atol=1e-7)


# ------------------------------------------------------------------ old top-level names

def test_old_names() -> None:
    tb, eb = pair((2, 3, 2), seed=21)
    ta, ea = pair((3, 3), seed=22)
    ta, ea = ta + 3 * torch.eye(3, dtype=ta.dtype), ea + 3 * ember.eye(3, dtype=ember.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kw in (dict(), dict(upper=False, transpose=True, unitriangular=True)):
            r, tr = ember.triangular_solve(eb, ea, **kw), torch.triangular_solve(tb, ta, **kw)
            assert type(r).__name__ == "triangular_solve"
            close(r.solution, tr.solution)
            close(r.cloned_coefficient, tr.cloned_coefficient)
            close(eb.triangular_solve(ea, **kw).solution, tr.solution)
        s = ta @ ta.mT
        es = ember.tensor(s.tolist(), dtype=ember.float64)
        close(ember.cholesky(es, upper=True), torch.cholesky(s, upper=True))
    close(ember.pinverse(eb, rcond=0.1), torch.pinverse(tb, rcond=0.1))


def _errs() -> list:
    return [
        (lambda m: m.linalg.matrix_exp(m.ones(2, 3)), "exp rect", True),
        (lambda m: m.linalg.matrix_exp(m.ones(3)), "exp 1-d", True),
        (lambda m: m.linalg.matrix_exp(m.ones(2, 2, dtype=m.int64)), "exp int", True),
        (lambda m: m.linalg.householder_product(m.ones(2, 3), m.ones(2)), "hp wide", True),
        (lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(3)), "hp tau", True),
        (lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(2, dtype=m.float64)), "hp dtype", True),
        (lambda m: m.linalg.householder_product(m.ones(2, 3, 2), m.ones(3, 2)), "hp batch", True),
        (lambda m: m.linalg.householder_product(m.ones(3), m.ones(2)), "hp 1-d", True),
        (lambda m: m.linalg.householder_product(m.ones(3, 2, dtype=m.int64), m.ones(2, dtype=m.int64)), "hp int", True),
        (lambda m: m.ormqr(m.ones(3, 2), m.ones(2), m.ones(4, 3)), "ormqr rows", True),
        (lambda m: m.ormqr(m.ones(3, 2), m.ones(3), m.ones(3, 3)), "ormqr tau", True),
        (lambda m: m.ormqr(m.ones(3, 2), m.ones(2), m.ones(3, 3, dtype=m.float64)), "ormqr dtype", True),
        (lambda m: m.ormqr(m.ones(3, 2), m.ones(2), m.ones(3)), "ormqr 1-d", True),
        (lambda m: m.ormqr(m.ones(5, 3, 2), m.ones(5, 2), m.ones(3, 3)), "ormqr ndim", True),
        (lambda m: m.geqrf(m.ones(3)), "geqrf 1-d", True),
        (lambda m: m.geqrf(m.ones(3, 3, dtype=m.int64)), "geqrf int", True),
        (lambda m: m.linalg.ldl_factor(m.ones(3, 2)), "ldl rect", True),
        (lambda m: m.linalg.ldl_factor(m.ones(3)), "ldl 1-d", True),
        (lambda m: m.linalg.ldl_factor(m.ones(3, 3, dtype=m.int32)), "ldl int", True),
        (lambda m: m.linalg.ldl_factor(m.ones(3, 3, dtype=m.float16)), "ldl half", True),
        (lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(2, dtype=m.int32), m.ones(3, 1)), "ldl piv", True),
        (lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(3, dtype=m.int32), m.ones(3, 1, dtype=m.float64)), "ldl dt",
         True),
        (lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(3, dtype=m.int32), m.ones(2, 1)), "ldl size", True),
        (lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(3, dtype=m.float64), m.ones(3, 1)), "ldl piv float", True),
        (lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(3, dtype=m.int32), m.ones(3)), "ldl 1-d B", True),
        (lambda m: m.linalg.tensorinv(m.ones(4, 6, 8, 4), ind=2), "tinv shape", True),
        (lambda m: m.linalg.tensorinv(m.ones(4, 4), ind=0), "tinv ind", True),
        (lambda m: m.linalg.tensorinv(m.zeros(4, 4), ind=1), "tinv singular", True),
        (lambda m: m.linalg.tensorsolve(m.ones(2, 3, 5), m.ones(2, 3)), "tsolve shape", True),
        (lambda m: m.triangular_solve(m.ones(3), m.eye(3)), "trisolve 1-d", True),
        (lambda m: m.triangular_solve(m.ones(2, 2), m.eye(3)), "trisolve size", True),
        (lambda m: m.lstsq(m.eye(2), m.eye(2)), "lstsq", False),
        (lambda m: m.solve(m.eye(2), m.eye(2)), "solve", False),
        (lambda m: m.symeig(m.eye(2)), "symeig", False),
        (lambda m: m.eig(m.eye(2)), "eig", False),
        (lambda m: m.matrix_rank(m.eye(2)), "matrix_rank", True),
        (lambda m: m.eye(2).lstsq(m.eye(2)), "Tensor.lstsq", False),
        (lambda m: m.eye(2).solve(m.eye(2)), "Tensor.solve", False),
        (lambda m: m.eye(2).symeig(), "Tensor.symeig", False),
        (lambda m: m.eye(2).eig(), "Tensor.eig", False),
    ]


@pytest.mark.parametrize("fn,name,exact", _errs(), ids=[n for _, n, _ in _errs()])
def test_errors(fn: Any, name: str, exact: bool) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda: fn(ember), lambda: fn(torch), exact)


@pytest.mark.parametrize("piv", [[0, 2, 3], [4, 2, 3], [1, 2, -2147483648], [1, 2, -3], [-2, 1, 3]])
def test_ldl_solve_bad_pivots_raise(piv: list) -> None:
    # pivots that are not ldl_factor's never reach LAPACK: PyTorch's errors for 0 / past n, and
    # ember's for a 2x2 block the pivots cut off (PyTorch answers NaN from rows outside B there)
    LD = ember.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]], dtype=ember.float64)
    with pytest.raises(RuntimeError, match="ldl_solve"):
        ember.linalg.ldl_solve(LD, ember.tensor(piv, dtype=ember.int32), ember.ones(3, 2, dtype=ember.float64))


@pytest.mark.parametrize("kw", [dict(upper=True), dict(upper=False, unitriangular=True), dict(upper=True, left=False),
                                dict(upper=False, left=False, unitriangular=True)])
@pytest.mark.parametrize("shapes", [((4, 4), (4, 3)), ((2, 4, 4), (4, 3)), ((4, 4), (3, 4, 3))])
def test_solve_triangular_trsm_with_double_backward(kw: dict, shapes: tuple) -> None:
    """The trsm kernel reads only the triangle asked for (the other holds noise here); gradients
    and their gradients through the batch broadcast match PyTorch's."""
    rng = np.random.default_rng(len(shapes[0]) + 3 * len(kw))
    a0 = rng.standard_normal(shapes[0]) + 4 * np.eye(4)
    b0 = rng.standard_normal(shapes[1])
    if kw.get("left") is False:  # X A = B: B's rows have A's size
        b0 = np.swapaxes(b0, -1, -2)
    outs = []
    for L in (torch, ember):
        A, B = L.tensor(a0, requires_grad=True), L.tensor(b0, requires_grad=True)
        X = L.linalg.solve_triangular(A, B, **kw)
        gA, gB = L.autograd.grad((X * X).sum(), (A, B), create_graph=True)
        ggA, ggB = L.autograd.grad((gA * gA).sum() + (gB * gB).sum(), (A, B))
        outs.append([np.array(t.detach().numpy()) for t in (X, gA, gB, ggA, ggB)])
    for e, t in zip(outs[1], outs[0], strict=True):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-10)


def test_solve_triangular_zero_diagonal_gives_ieee_values() -> None:
    outs = [L.linalg.solve_triangular(L.tensor([[1.0, 2.0], [0.0, 0.0]]), L.ones(2, 1), upper=True)
            for L in (torch, ember)]
    assert outs[1].tolist() == outs[0].tolist() == [[-math.inf], [math.inf]]
