"""ember.linalg.lu_factor / lu_factor_ex / lu / lu_solve, ember.lu_unpack and the deprecated
ember.lu / ember.lu_solve against PyTorch: values (LAPACK's getrf on both sides, so pivots agree),
gradients, and PyTorch's errors."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

import ember  # noqa: E402

DT = {"float32": (torch.float32, ember.float32), "float64": (torch.float64, ember.float64)}
TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-10)}
GTOL = {"float32": dict(rtol=2e-3, atol=2e-4), "float64": dict(rtol=1e-7, atol=1e-8)}


def pair(shape: tuple, dt: str = "float64", seed: int = 0, grad: bool = False) -> tuple:
    g = torch.Generator().manual_seed(seed)
    t = torch.randn(shape, generator=g, dtype=torch.float64).to(DT[dt][0])
    e = ember.tensor(t.tolist(), dtype=DT[dt][1]) if t.numel() else ember.zeros(shape, dtype=DT[dt][1])
    if grad:
        t.requires_grad_(True)
        e.requires_grad_(True)
    return t, e


def to_t(e: Any) -> torch.Tensor:
    return torch.from_numpy(np.array(e.detach().numpy()))


def close(e: Any, t: torch.Tensor, dt: str = "float64", **kw: Any) -> None:
    torch.testing.assert_close(to_t(e), t.detach(), **{**TOL[dt], **kw})


def same_error(efn: Any, tfn: Any) -> None:
    with pytest.raises(Exception) as te:
        tfn()
    with pytest.raises(Exception) as ee:
        efn()
    base = next(c for c in te.type.__mro__ if c.__module__ == "builtins")  # LinAlgError -> RuntimeError
    assert isinstance(ee.value, base), (ee.value, te.value)
    assert str(ee.value) == str(te.value)


SHAPES = [(4, 4), (3, 5), (5, 3), (2, 3, 3), (2, 1, 4, 6), (3, 6, 4), (0, 3), (2, 0, 0)]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
def test_lu_factor_values(dt: str, shape: tuple) -> None:
    t, e = pair(shape, dt)
    r, tr = ember.linalg.lu_factor_ex(e), torch.linalg.lu_factor_ex(t)
    assert type(r).__name__ == "linalg_lu_factor_ex" and r.LU is r[0] and r.info is r[2]
    close(r.LU, tr.LU, dt)
    assert r.pivots.dtype == ember.int32 and to_t(r.pivots).tolist() == tr.pivots.tolist()
    assert to_t(r.info).tolist() == tr.info.tolist()
    P, L, U = ember.linalg.lu(e)
    tP, tL, tU = torch.linalg.lu(t)
    for a, b in ((P, tP), (L, tL), (U, tU)):
        assert tuple(a.shape) == tuple(b.shape)
        close(a, b, dt)
    up = ember.lu_unpack(r.LU, r.pivots)
    assert type(up).__name__ == "lu_unpack"
    close(up.P, tP, dt)


@pytest.mark.parametrize("op", ["lu_factor_ex", "ldl_factor_ex"])
def test_factor_batch_with_a_nonfinite_matrix(op: str) -> None:
    # what LAPACK leaves in the factor of a matrix holding NaN / inf is its build's choice (MKL and
    # OpenBLAS differ; the fuzz oracle compares those on dtype and shape): the batch's finite
    # matrices still factor as PyTorch's, and the others keep their NaN
    t, e = pair((3, 4, 4))
    t = t + t.mT  # symmetric, for LDL
    t[1, 2, 1] = t[1, 1, 2] = float("nan")
    t[2, 0, 3] = t[2, 3, 0] = float("inf")
    e = ember.tensor(t.tolist(), dtype=ember.float64)
    r, tr = getattr(ember.linalg, op)(e), getattr(torch.linalg, op)(t)
    close(r[0][0], tr[0][0])
    assert to_t(r[1][0]).tolist() == tr[1][0].tolist() and to_t(r[2][0]).item() == tr[2][0].item()
    assert bool(to_t(r[0][1]).isnan().any()) and tuple(r[0].shape) == tuple(tr[0].shape)


def test_lu_factor_singular_reconstructs() -> None:
    # the residues a singular matrix leaves in U (OpenBLAS 0, MKL 5.6e-17, and the multipliers
    # formed from them) are the LAPACK build's (the fuzz oracle compares dtype and shape there);
    # the factorization itself holds: P L U = A
    a = torch.tensor([[5.0, 1.0, 5.0, 1.0], [1.0, -0.5, 1.0, -0.5], [-1.0, 6.0, -1.0, 6.0], [0.5, 1.0, 0.5, 1.0]],
                     dtype=torch.float64)
    r = ember.linalg.lu_factor_ex(ember.tensor(a.tolist(), dtype=ember.float64))
    P, L, U = ember.lu_unpack(r.LU, r.pivots)
    close(P @ L @ U, a)
    assert to_t(r.pivots).tolist() == torch.linalg.lu_factor_ex(a).pivots.tolist()


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3), (2, 4, 2)])
def test_lu_gradients(dt: str, shape: tuple) -> None:
    t, e = pair(shape, dt, seed=1, grad=True)
    w, we = pair(shape, dt, seed=2)
    # through the packed factor and through P, L, U
    eg = ember.autograd.grad((ember.linalg.lu_factor(e).LU * we).sum(), [e])[0]
    tg = torch.autograd.grad((torch.linalg.lu_factor(t).LU * w).sum(), [t])[0]
    close(eg, tg, dt, **GTOL[dt])
    _, L, U = ember.linalg.lu(e)
    _, tL, tU = torch.linalg.lu(t)
    eg = ember.autograd.grad((L.sin().sum() + (U * U).sum()), [e])[0]
    tg = torch.autograd.grad((tL.sin().sum() + (tU * tU).sum()), [t])[0]
    close(eg, tg, dt, **GTOL[dt])


def test_lu_gradcheck() -> None:
    _, e = pair((2, 3, 3), seed=3, grad=True)
    assert ember.autograd.gradcheck(lambda a: ember.linalg.lu_factor(a).LU, (e,))
    _, w = pair((4, 3), seed=4, grad=True)
    assert ember.autograd.gradcheck(lambda a: ember.linalg.lu(a)[1:], (w,))


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
@pytest.mark.parametrize("shapes", [((4, 4), (4, 2)), ((2, 3, 3), (3, 3)), ((3, 3), (2, 1, 3, 3)), ((1, 3, 3), (2, 3, 1))])
def test_lu_solve(dt: str, left: bool, adjoint: bool, shapes: tuple) -> None:
    ta, ea = pair(shapes[0], dt, seed=5)
    ta = ta + 3 * torch.eye(shapes[0][-1], dtype=ta.dtype)
    ea = ember.tensor(ta.tolist(), dtype=DT[dt][1])
    tb, eb = pair(shapes[1], dt, seed=6, grad=True)
    if not left:
        tb, eb = tb.detach().mT.contiguous().requires_grad_(), eb.detach().mT.contiguous().requires_grad_()
    tLU, tp = torch.linalg.lu_factor(ta)
    eLU, ep = ember.linalg.lu_factor(ea)
    tLU.requires_grad_()
    eLU.requires_grad_()
    tx = torch.linalg.lu_solve(tLU, tp, tb, left=left, adjoint=adjoint)
    ex = ember.linalg.lu_solve(eLU, ep, eb, left=left, adjoint=adjoint)
    close(ex, tx, dt, rtol=1e-3 if dt == "float32" else 1e-9, atol=1e-4 if dt == "float32" else 1e-10)
    # without a gradient: the trsm kernel instead of the composed triangular solves
    ex2 = ember.linalg.lu_solve(eLU.detach(), ep, eb.detach(), left=left, adjoint=adjoint)
    close(ex2, tx, dt, rtol=1e-3 if dt == "float32" else 1e-9, atol=1e-4 if dt == "float32" else 1e-10)
    eg = ember.autograd.grad((ex * ex).sum(), [eLU, eb])
    tg = torch.autograd.grad((tx * tx).sum(), [tLU, tb])
    for a, b in zip(eg, tg, strict=True):
        close(a, b, dt, rtol=2e-3 if dt == "float32" else 1e-7, atol=2e-3 if dt == "float32" else 1e-8)


def test_deprecated_forms() -> None:
    t, e = pair((3, 3), seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        LU, piv = ember.lu(e)
        tLU, tpiv = torch.lu(t)
        close(LU, tLU)
        r = ember.lu(e, get_infos=True)
        assert type(r).__name__ == "_lu_with_info" and to_t(r.info).item() == 0
        close(e.lu()[0], tLU)
        tb, eb = pair((3, 2), seed=8)
        close(ember.lu_solve(eb, LU, piv), torch.lu_solve(tb, tLU, tpiv))
        close(eb.lu_solve(LU, piv), tb.lu_solve(tLU, tpiv))
        # the deprecated torch.lu never raises for a singular matrix
        tinfo = torch.lu(torch.zeros(2, 2), get_infos=True).info.item()
        assert to_t(ember.lu(ember.zeros(2, 2), get_infos=True).info).item() == tinfo


def test_out_and_partial_unpack() -> None:
    t, e = pair((3, 3), seed=9)
    LU, piv = ember.empty(0, dtype=ember.float64), ember.empty(0, dtype=ember.int32)
    r = ember.linalg.lu_factor(e, out=(LU, piv))
    assert r.LU is LU and tuple(LU.shape) == (3, 3)
    close(LU, torch.linalg.lu_factor(t).LU)
    tu = torch.lu_unpack(*torch.linalg.lu_factor(t), unpack_data=False)
    eu = ember.lu_unpack(LU, piv, unpack_data=False)
    assert tuple(eu.L.shape) == tuple(tu.L.shape) == (0,)
    close(eu.P, tu.P)
    eu = ember.lu_unpack(LU, piv, unpack_pivots=False)
    assert tuple(eu.P.shape) == (0,)


def _errs() -> list:
    return [
        (lambda m: m.linalg.lu_factor(m.zeros(2, 2)), "singular"),
        (lambda m: m.linalg.lu_factor(m.zeros(3, 2, 2)), "singular batch"),
        (lambda m: m.linalg.lu_factor_ex(m.zeros(2, 2), check_errors=True), "check_errors"),
        (lambda m: m.linalg.lu_factor(m.ones(2, 2, dtype=m.int64)), "int"),
        (lambda m: m.linalg.lu_factor(m.ones(2, 2, dtype=m.float16)), "half"),
        (lambda m: m.linalg.lu_factor(m.ones(2)), "1-d"),
        (lambda m: m.linalg.lu_factor(m.ones(2, 3), pivot=False), "pivot"),
        (lambda m: m.linalg.lu(m.ones(2, 3), pivot=False), "lu pivot"),
        (lambda m: m.lu_unpack(m.eye(3), m.ones(3, dtype=m.int64)), "unpack long"),
        (lambda m: m.lu_unpack(m.ones(3), m.ones(3, dtype=m.int32)), "unpack 1-d"),
        (lambda m: m.lu_unpack(m.eye(3), m.tensor([5, 1, 1], dtype=m.int32)), "unpack range"),
        (lambda m: m.linalg.lu_solve(m.eye(3), m.ones(3, dtype=m.int32), m.ones(3)), "solve 1-d B"),
        (lambda m: m.linalg.lu_solve(m.eye(3), m.ones(3, dtype=m.int32), m.ones(3, 2, dtype=m.float64)), "dtype"),
        (lambda m: m.linalg.lu_solve(m.eye(3), m.ones(3, dtype=m.int32), m.ones(2, 2)), "shape"),
        (lambda m: m.linalg.lu_solve(m.eye(3), m.ones(3, dtype=m.int32), m.ones(2, 2), left=False), "shape right"),
        (lambda m: m.linalg.lu_solve(m.eye(3), m.ones(3, dtype=m.int64), m.ones(3, 2)), "pivots long"),
        (lambda m: m.linalg.lu_solve(m.ones(3, 2), m.ones(2, dtype=m.int32), m.ones(3, 2)), "rect"),
        (lambda m: m.linalg.lu_solve(m.eye(3), m.ones(2, dtype=m.int32), m.ones(3, 2)), "pivot count"),
        (lambda m: m.linalg.lu_solve(m.ones(3, dtype=m.int64).diag(), m.ones(3, dtype=m.int32),
                                     m.ones(3, 2, dtype=m.int64)), "int LU"),
        (lambda m: m.linalg.lu_solve(m.ones(3), m.ones(3, dtype=m.int32), m.ones(3, 2)), "1-d LU"),
    ]


@pytest.mark.parametrize("fn,name", _errs(), ids=[n for _, n in _errs()])
def test_errors(fn: Any, name: str) -> None:
    same_error(lambda: fn(ember), lambda: fn(torch))


def test_grad_fn_name_and_out_dtype() -> None:
    _, e = pair((3, 3), seed=10, grad=True)
    assert ember.linalg.lu_factor(e).LU.grad_fn.name() == "LinalgLuFactorExBackward0"
    same_error(lambda: ember.linalg.lu_factor(ember.eye(2), out=(ember.empty(0, dtype=ember.float64),
                                                                 ember.empty(0, dtype=ember.int32))),
               lambda: torch.linalg.lu_factor(torch.eye(2), out=(torch.empty(0, dtype=torch.float64),
                                                                 torch.empty(0, dtype=torch.int32))))
