"""ember.linalg against PyTorch: decompositions through their invariants (svd / eigh / qr are
unique only up to signs), the Python-composed functions by value, gradients on
gauge-invariant losses, and PyTorch's errors."""

from __future__ import annotations

import math
from typing import Any

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

import ember  # noqa: E402

DT = {"float32": (torch.float32, ember.float32), "float64": (torch.float64, ember.float64)}
TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-10)}


def pair(shape: tuple, dt: str = "float64", seed: int = 0, spd: bool = False, grad: bool = False) -> tuple:
    g = torch.Generator().manual_seed(seed)
    t = torch.randn(shape, generator=g, dtype=torch.float64)
    if spd:
        n = shape[-1]
        t = t @ t.mT + n * torch.eye(n, dtype=torch.float64)
    t = t.to(DT[dt][0])
    e = ember.tensor(t.tolist(), dtype=DT[dt][1]) if t.numel() else ember.zeros(shape, dtype=DT[dt][1])
    if grad:
        t.requires_grad_(True)
        e.requires_grad_(True)
    return t, e


def to_t(e: Any) -> torch.Tensor:
    return torch.from_numpy(np.array(e.detach().numpy()))


def close(e: Any, t: torch.Tensor, dt: str = "float64", **kw: Any) -> None:
    tol = {**TOL[dt], **kw}
    torch.testing.assert_close(to_t(e), t.detach(), **tol)


def grads_close(eloss: Any, tloss: torch.Tensor, eins: list, tins: list, dt: str = "float64") -> None:
    eg = ember.autograd.grad(eloss, eins)
    tg = torch.autograd.grad(tloss, tins)
    for a, b in zip(eg, tg, strict=True):
        close(a, b, dt, rtol=1e-6 if dt == "float64" else 1e-3, atol=1e-6 if dt == "float64" else 1e-4)


# ------------------------------------------------------------------ decompositions (invariants)

@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 5), (5, 5), (2, 1, 4, 2)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_invariants(dt: str, shape: tuple, full: bool) -> None:
    t, e = pair(shape, dt)
    U, S, Vh = ember.linalg.svd(e, full_matrices=full)
    tU, tS, tVh = torch.linalg.svd(t, full_matrices=full)
    assert tuple(U.shape) == tuple(tU.shape) and tuple(Vh.shape) == tuple(tVh.shape)
    assert U.dtype == e.dtype and S.dtype == e.dtype
    close(S, tS, dt)
    k = S.shape[-1]
    Ut, Vht = to_t(U), to_t(Vh)
    rec = Ut[..., :k] @ torch.diag_embed(to_t(S)) @ Vht[..., :k, :]
    torch.testing.assert_close(rec, t, **TOL[dt])
    eye_u = torch.eye(Ut.shape[-1], dtype=Ut.dtype).expand(Ut.mT.shape[:-1] + (Ut.shape[-1],))
    torch.testing.assert_close(Ut.mT @ Ut, eye_u, **TOL[dt])
    torch.testing.assert_close(Vht @ Vht.mT, torch.eye(Vht.shape[-2], dtype=Ut.dtype).expand_as(Vht @ Vht.mT),
                               **TOL[dt])
    assert type(ember.linalg.svd(e)).__name__ == "linalg_svd"


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (1, 1)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_invariants(dt: str, shape: tuple, uplo: str) -> None:
    t, e = pair(shape, dt, spd=True)
    # only the UPLO triangle may be read: garble the other one
    n = shape[-1]
    junk = torch.triu(torch.full((n, n), 7.0), 1).to(t.dtype)
    junk = junk if uplo == "L" else junk.mT
    tg = t + junk
    eg = ember.tensor(tg.tolist(), dtype=DT[dt][1])
    L, V = ember.linalg.eigh(eg, UPLO=uplo)
    tL, _ = torch.linalg.eigh(tg, UPLO=uplo)
    close(L, tL, dt)
    Vt = to_t(V)
    torch.testing.assert_close(Vt @ torch.diag_embed(to_t(L)) @ Vt.mT, t, **TOL[dt])
    close(ember.linalg.eigvalsh(eg, UPLO=uplo), tL, dt)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 4, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_invariants(dt: str, shape: tuple, mode: str) -> None:
    t, e = pair(shape, dt)
    Q, R = ember.linalg.qr(e, mode=mode)
    tQ, tR = torch.linalg.qr(t, mode=mode)
    assert tuple(Q.shape) == tuple(tQ.shape) and tuple(R.shape) == tuple(tR.shape)
    Rt = to_t(R)
    torch.testing.assert_close(Rt, torch.triu(Rt))
    torch.testing.assert_close(Rt.abs(), tR.abs(), **TOL[dt])
    if mode != "r":
        Qt = to_t(Q)
        torch.testing.assert_close(Qt @ Rt, t, **TOL[dt])
        eye = torch.eye(Qt.shape[-1], dtype=Qt.dtype)
        torch.testing.assert_close(Qt.mT @ Qt, eye.expand(Qt.shape[:-2] + eye.shape), **TOL[dt])


# ------------------------------------------------------------------ gradients (gauge-invariant)

@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (3, 3), (2, 3, 4)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_grad(shape: tuple, full: bool) -> None:
    t, e = pair(shape, grad=True, seed=3)
    W = torch.randn(shape[:-2] + (shape[-2], shape[-2] if full else min(shape[-2:])), dtype=torch.float64,
                    generator=torch.Generator().manual_seed(1))
    W2 = torch.randn(shape[:-2] + (shape[-1] if full else min(shape[-2:]), shape[-1]), dtype=torch.float64,
                     generator=torch.Generator().manual_seed(2))
    if full and shape[-2] != shape[-1]:
        # PyTorch: the full factors are not differentiable beyond their first k columns
        W = W.clone()
        W[..., min(shape[-2:]):] = 0
        W2 = W2.clone()
        W2[..., min(shape[-2:]):, :] = 0
    eW, eW2 = ember.tensor(W.tolist()), ember.tensor(W2.tolist())

    def loss(lib: Any, x: Any, w: Any, w2: Any) -> Any:
        U, S, Vh = lib.linalg.svd(x, full_matrices=full)
        return (U * U * w).sum() + (S * S).sum() + (Vh * Vh * w2).sum()

    grads_close(loss(ember, e, eW, eW2), loss(torch, t, W, W2), [e], [t])


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_grad(uplo: str) -> None:
    t, e = pair((2, 4, 4), spd=True, grad=True, seed=5)
    W = torch.randn((2, 4, 4), dtype=torch.float64, generator=torch.Generator().manual_seed(6))
    eW = ember.tensor(W.tolist())

    def loss(lib: Any, x: Any, w: Any) -> Any:
        L, V = lib.linalg.eigh(x, UPLO=uplo)
        return (V * V * w).sum() + (L * L).sum()

    grads_close(loss(ember, e, eW), loss(torch, t, W), [e], [t])
    grads_close(ember.linalg.eigvalsh(e).sum(), torch.linalg.eigvalsh(t).sum(), [e], [t])


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_qr_grad(shape: tuple) -> None:
    t, e = pair(shape, grad=True, seed=7)
    k = min(shape)
    W = torch.randn((shape[0], k), dtype=torch.float64, generator=torch.Generator().manual_seed(8))
    W2 = torch.randn((k, shape[1]), dtype=torch.float64, generator=torch.Generator().manual_seed(9))
    eW, eW2 = ember.tensor(W.tolist()), ember.tensor(W2.tolist())

    def loss(lib: Any, x: Any, w: Any, w2: Any) -> Any:
        Q, R = lib.linalg.qr(x)
        return (Q * Q * w).sum() + (R * R * w2).sum() + (Q @ R * w[:, :1]).sum()

    grads_close(loss(ember, e, eW, eW2), loss(torch, t, W, W2), [e], [t])


def _sym(x: Any) -> Any:
    return (x + x.mT) * 0.5


def test_double_backward_decompositions() -> None:
    g = ember.autograd.gradgradcheck
    _, a = pair((3, 3), spd=True, grad=True, seed=11)
    assert g(lambda x: ember.linalg.eigh(_sym(x))[0], (a,))
    assert g(lambda x: (ember.linalg.eigh(_sym(x))[1] ** 2).sum(-1), (a,))
    _, b = pair((3, 4), grad=True, seed=12)
    assert g(lambda x: ember.linalg.svdvals(x), (b,))
    assert g(lambda x: ember.linalg.svd(x, full_matrices=False)[0] ** 2, (b,))
    _, c = pair((4, 3), grad=True, seed=13)
    assert g(lambda x: ember.linalg.qr(x)[1] ** 2, (c,))
    assert g(lambda x: ember.linalg.cholesky(x @ x.mT + 3 * ember.eye(3, dtype=x.dtype)), (a,))


def test_gradcheck_decompositions() -> None:
    gc = ember.autograd.gradcheck
    _, a = pair((2, 3, 3), spd=True, grad=True, seed=21)
    assert gc(lambda x: ember.linalg.cholesky(_sym(x), upper=True), (a,))
    assert gc(lambda x: (ember.linalg.eigh(_sym(x))[1] ** 2), (a,))
    _, b = pair((3, 5), grad=True, seed=22)
    assert gc(lambda x: ember.linalg.qr(x)[0] ** 2, (b,))
    assert gc(lambda x: ember.linalg.qr(x)[1] ** 2, (b,))
    assert gc(lambda x: ember.linalg.svd(x)[2][:3] ** 2, (b,))


# ------------------------------------------------------------------ Python-composed functions

ORDS = ["fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2]


@pytest.mark.parametrize("ord", ORDS)
@pytest.mark.parametrize("dim,keepdim", [((-2, -1), False), ((0, 2), True), ((2, 0), False)])
def test_matrix_norm(ord: Any, dim: tuple, keepdim: bool) -> None:
    t, e = pair((3, 2, 4), grad=True, seed=31)
    r = ember.linalg.matrix_norm(e, ord, dim, keepdim)
    tr = torch.linalg.matrix_norm(t, ord, dim, keepdim)
    close(r, tr)
    grads_close(r.sum(), tr.sum(), [e], [t])


def test_norm_dispatch() -> None:
    t, e = pair((3, 4))
    for args, kw in [((), {}), (("fro",), {}), ((2,), {}), (("nuc",), {}), ((1,), {"dim": 1}),
                     ((None, (0, 1)), {}), ((3,), {"dim": (1,)}), ((), {"keepdim": True})]:
        close(ember.linalg.norm(e, *args, **kw), torch.linalg.norm(t, *args, **kw))
    close(ember.linalg.norm(e[0], 3), torch.linalg.norm(t[0], 3))
    t3, e3 = pair((2, 2, 2))
    with pytest.raises(RuntimeError, match="must be 1D or 2D"):
        ember.linalg.norm(e3, 2)
    with pytest.raises(RuntimeError, match="Order 3 not supported"):
        ember.linalg.matrix_norm(e, 3)


@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv_rank(hermitian: bool) -> None:
    t, e = pair((4, 4) if hermitian else (3, 5), spd=hermitian, grad=True, seed=41)
    close(ember.linalg.pinv(e, hermitian=hermitian), torch.linalg.pinv(t, hermitian=hermitian))
    grads_close(ember.linalg.pinv(e, hermitian=hermitian).sum(), torch.linalg.pinv(t, hermitian=hermitian).sum(),
                [e], [t])
    assert ember.linalg.matrix_rank(e, hermitian=hermitian).item() == torch.linalg.matrix_rank(
        t, hermitian=hermitian).item()
    low = torch.ones(3, 4, dtype=torch.float64)
    assert ember.linalg.matrix_rank(ember.ones(3, 4, dtype=ember.float64)).item() == \
        torch.linalg.matrix_rank(low).item() == 1
    close(ember.linalg.pinv(ember.ones(3, 4, dtype=ember.float64)), torch.linalg.pinv(low))
    close(ember.linalg.pinv(e.detach(), atol=0.5, rtol=0.1, hermitian=hermitian),
          torch.linalg.pinv(t.detach(), atol=0.5, rtol=0.1, hermitian=hermitian))


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_lstsq(driver: str | None, shape: tuple) -> None:
    t, e = pair(shape, grad=True, seed=51)
    tb, eb = pair((shape[0], 2), seed=52)
    if driver == "gels" and shape[0] < shape[1]:
        return  # gels: the underdetermined case is LAPACK-implementation specific
    r = ember.linalg.lstsq(e, eb, driver=driver)
    tr = torch.linalg.lstsq(t, tb, driver=driver)
    assert type(r).__name__ == "linalg_lstsq"
    for a, b in zip(r, tr, strict=True):
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        if b.numel():
            close(a, b)
    grads_close(r.solution.sum(), tr.solution.sum(), [e], [t])


def test_cross_and_power_and_multi_dot() -> None:
    ta, ea = pair((4, 3), grad=True, seed=61)
    tb, eb = pair((1, 3), grad=True, seed=62)
    close(ember.linalg.cross(ea, eb), torch.linalg.cross(ta, tb))
    grads_close(ember.linalg.cross(ea, eb).sum(), torch.linalg.cross(ta, tb).sum(), [ea, eb], [ta, tb])
    tc, ec = pair((3, 2, 5), seed=63)
    td, ed = pair((3, 2, 5), seed=64)
    close(ember.linalg.cross(ec, ed, dim=0), torch.linalg.cross(tc, td, dim=0))
    with pytest.warns(UserWarning):
        close(ember.cross(ec, ed), torch.cross(tc, td, dim=0))
    with pytest.raises(RuntimeError, match="must have length 3"):
        ember.linalg.cross(ec, ed)
    tm, em = pair((2, 3, 3), spd=True, grad=True, seed=65)
    for n in (0, 1, 2, 3, 5, -1, -3):
        close(ember.linalg.matrix_power(em, n), torch.linalg.matrix_power(tm, n), rtol=1e-8)
    grads_close(ember.linalg.matrix_power(em, -2).sum(), torch.linalg.matrix_power(tm, -2).sum(), [em], [tm])
    ts = [pair(s, seed=70 + i, grad=True) for i, s in enumerate([(4,), (4, 3), (3, 6), (6, 2), (2,)])]
    close(ember.linalg.multi_dot([x[1] for x in ts]), torch.linalg.multi_dot([x[0] for x in ts]))
    grads_close(ember.linalg.multi_dot([x[1] for x in ts]), torch.linalg.multi_dot([x[0] for x in ts]),
                [x[1] for x in ts], [x[0] for x in ts])
    with pytest.raises(RuntimeError, match="expected at least 2 tensors"):
        ember.linalg.multi_dot([ts[1][1]])


EINSUMS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("b...i,b...i->b...", [(2, 3, 4), (2, 3, 4)]),
    ("ijk,kji->", [(2, 3, 4), (4, 3, 2)]),
    ("ba,ab", [(3, 4), (4, 3)]),
    ("Ba,aB", [(3, 4), (4, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij,ij->ij", [(3, 4), (1, 4)]),
    ("i i, i ->", [(3, 3), (3,)]),
    ("...->...", [(2, 3)]),
    ("abc,cd,dbe->ae", [(2, 3, 4), (4, 5), (5, 3, 2)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
def test_einsum(eq: str, shapes: list) -> None:
    ps = [pair(s, seed=80 + i, grad=True) for i, s in enumerate(shapes)]
    r = ember.einsum(eq, *[p[1] for p in ps])
    tr = torch.einsum(eq, *[p[0] for p in ps])
    close(r, tr)
    w = torch.randn(tr.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    grads_close((r * ember.tensor(w.tolist())).sum(), (tr * w).sum(), [p[1] for p in ps], [p[0] for p in ps])
    close(ember.einsum(eq, [p[1] for p in ps]), tr)  # operands as one list


@pytest.mark.parametrize("eq,n,msg", [
    ("ij,jk", 1, "fewer operands"), ("ij", 2, "more operands"), ("ijk", 1, "number of subscripts"),
    ("ij->k", 1, "output subscript k"),
])
def test_einsum_errors(eq: str, n: int, msg: str) -> None:
    _, e = pair((2, 3))
    with pytest.raises(RuntimeError, match=msg):
        ember.einsum(eq, *[e] * n)
    t, _ = pair((2, 3))
    with pytest.raises(RuntimeError, match=msg):
        torch.einsum(eq, *[t] * n)


def test_einsum_int() -> None:
    a = ember.arange(6).reshape(2, 3)
    assert ember.einsum("ij,kj->ik", a, a).tolist() == torch.einsum(
        "ij,kj->ik", torch.arange(6).reshape(2, 3), torch.arange(6).reshape(2, 3)).tolist()


def test_tensordot_kron_trace() -> None:
    ta, ea = pair((3, 4, 5), grad=True, seed=91)
    tb, eb = pair((4, 5, 2), grad=True, seed=92)
    for dims in (2, ([1, 2], [0, 1]), ([1], [0]), 0):
        r, tr = ember.tensordot(ea, eb, dims=dims) if dims != 0 else ember.tensordot(ea, eb, 0), \
            torch.tensordot(ta, tb, dims=dims)
        close(r, tr)
    grads_close(ember.tensordot(ea, eb).sum(), torch.tensordot(ta, tb).sum(), [ea, eb], [ta, tb])
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        ember.tensordot(ea, eb, 1)
    tk, ek = pair((2, 3), grad=True, seed=93)
    tl, el = pair((3, 1, 2), grad=True, seed=94)
    close(ember.kron(ek, el), torch.kron(tk, tl))
    grads_close(ember.kron(ek, el).sum(), torch.kron(tk, tl).sum(), [ek, el], [tk, tl])
    close(ember.trace(ek), torch.trace(tk))
    grads_close(ember.trace(ek), torch.trace(tk), [ek], [tk])
    assert ember.trace(ember.arange(9).reshape(3, 3)).item() == 12
    with pytest.raises(RuntimeError, match="expected a matrix"):
        ember.trace(el)


def test_top_level_aliases() -> None:
    t, e = pair((2, 3, 3), spd=True, seed=101)
    close(ember.inverse(e), torch.inverse(t))
    close(ember.det(e), torch.det(t))
    close(ember.logdet(e), torch.logdet(t))
    sign, lad = ember.slogdet(e)
    tsign, tlad = torch.slogdet(t)
    close(sign, tsign)
    close(lad, tlad)
    neg = ember.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=ember.float64)
    assert math.isnan(ember.logdet(neg).item())
    L = ember.linalg.cholesky(e)
    tL = torch.linalg.cholesky(t)
    _, eb = pair((2, 3, 2), seed=102)
    tb = to_t(eb)
    close(ember.cholesky_solve(eb, L), torch.cholesky_solve(tb, tL))
    close(ember.cholesky_solve(eb, L.mT, upper=True), torch.cholesky_solve(tb, tL.mT, upper=True))
    close(ember.cholesky_inverse(L[0]), torch.cholesky_inverse(tL[0]))


# ------------------------------------------------------------------ errors and *_ex variants

def test_errors_and_ex() -> None:
    assert ember.linalg.LinAlgError is ember._lib._C._LinAlgError and issubclass(ember.linalg.LinAlgError, RuntimeError)
    sing = ember.tensor([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(ember.linalg.LinAlgError, match=r"^linalg.inv: The diagonal element 2 is zero, the "
                       r"inversion could not be completed because the input matrix is singular.$"):
        ember.linalg.inv(sing)
    notpd = ember.tensor([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ember.linalg.LinAlgError, match=r"^linalg.cholesky: The factorization could not be "
                       r"completed because the input is not positive-definite \(the leading minor of order 2 is "
                       r"not positive-definite\).$"):
        ember.linalg.cholesky(notpd)
    with pytest.raises(ember.linalg.LinAlgError, match=r"\(Batch element 1\)"):
        ember.linalg.cholesky(ember.stack([ember.eye(2), notpd]) if hasattr(ember, "stack")
                              else ember.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]))
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        ember.linalg.det(ember.ones(2, 3))
    r = ember.linalg.inv_ex(sing)
    tr = torch.linalg.inv_ex(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
    assert type(r).__name__ == "linalg_inv_ex" and r.info.item() == tr.info.item() == 2
    assert r.info.dtype == ember.int32
    c = ember.linalg.cholesky_ex(notpd)
    assert c.info.item() == torch.linalg.cholesky_ex(torch.tensor([[1.0, 2.0], [2.0, 1.0]])).info.item()
    ok = ember.linalg.inv_ex(ember.eye(3))
    assert ok.info.item() == 0 and ok.inverse.tolist() == torch.eye(3).tolist()
    with pytest.raises(ember.linalg.LinAlgError):
        ember.linalg.inv_ex(sing, check_errors=True)
    s = ember.linalg.solve_ex(ember.eye(2), ember.ones(2))
    assert s.info.item() == 0 and s.result.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("kw", [{}, {"some": False}, {"compute_uv": False}])
def test_legacy_svd_matches_torch(kw: dict) -> None:
    """torch.svd: (U, S, V) with V not transposed; compute_uv=False gives zero-filled full U and V."""
    torch = pytest.importorskip("torch")
    x = torch.randn(2, 4, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    r = torch.svd(x, **kw)
    e = ember.svd(ember.tensor(x.numpy()), **kw)
    assert type(e).__name__ == "svd" and type(e).__module__ == "torch.return_types"
    for a, b in zip(e, r, strict=True):
        assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(e.S.numpy(), r.S.numpy(), rtol=1e-10)
    if kw.get("compute_uv", True):
        # Singular vectors are unique up to sign: compare |U| and |V|.
        np.testing.assert_allclose(np.abs(e.U.numpy())[..., :3], np.abs(r.U.numpy())[..., :3], atol=1e-10)
        np.testing.assert_allclose(np.abs(e.V.numpy()), np.abs(r.V.numpy()), atol=1e-10)
    else:
        assert not e.U.abs().sum().item() and not e.V.abs().sum().item()


@pytest.mark.parametrize("some", [True, False])
def test_legacy_qr_matches_torch(some: bool) -> None:
    torch = pytest.importorskip("torch")
    x = torch.randn(4, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    with pytest.warns(UserWarning, match="torch.qr is deprecated"):
        e = ember.tensor(x.numpy()).qr(some)
    r = torch.linalg.qr(x, "reduced" if some else "complete")
    assert type(e).__name__ == "qr"
    np.testing.assert_allclose(e.Q.numpy(), r.Q.numpy(), atol=1e-10)
    np.testing.assert_allclose(e.R.numpy(), r.R.numpy(), atol=1e-10)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("mnk", [(300, 70, 200), (70, 301, 200), (33, 1000, 96), (1000, 33, 96)])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_threaded_gemm_blocks(dt: str, mnk: tuple, ta: bool, tb: bool) -> None:
    """Products large enough to be split into row or column blocks over ember's threads,
    with every transpose layout and sizes off the block alignment, equal numpy's."""
    m, n, k = mnk
    rng = np.random.default_rng(m * n + k)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(dt)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(dt)
    ea, eb = ember.from_numpy(a), ember.from_numpy(b)
    ea, eb = (ea.t() if ta else ea), (eb.t() if tb else eb)
    want = (a.T if ta else a) @ (b.T if tb else b)
    old = ember.get_num_threads()
    try:
        ember.set_num_threads(2)
        got = (ea @ eb).numpy()
        c = ember.ones(m, n, dtype=DT[dt][1])
        got_addmm = ember.addmm(c, ea, eb, beta=0.5, alpha=2.0).numpy()
    finally:
        ember.set_num_threads(old)
    tol = TOL[dt]
    np.testing.assert_allclose(got, want, rtol=tol["rtol"] * 10, atol=tol["atol"] * 100)
    np.testing.assert_allclose(got_addmm, 0.5 + 2.0 * want, rtol=tol["rtol"] * 10, atol=tol["atol"] * 100)


@pytest.mark.parametrize("n", [63, 64, 65, 130, 200])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_inv_blocked_solve(n: int, dt: str) -> None:
    """linalg.inv solves its LU in blocks of 64 rows (lu_solve.cpp): sizes around and past a block,
    batched, against torch; a singular matrix still raises."""
    tdt = getattr(torch, dt)
    g = torch.Generator().manual_seed(n)
    a = torch.randn(2, n, n, generator=g, dtype=tdt) + n ** 0.5 * torch.eye(n, dtype=tdt)
    got = torch.tensor(ember.linalg.inv(ember.tensor(a.tolist(), dtype=getattr(ember, dt))).tolist(), dtype=tdt)
    want = torch.linalg.inv(a)
    tol = 1e-4 if dt == "float32" else 1e-11
    torch.testing.assert_close(got, want, rtol=tol, atol=tol * want.abs().max().item())
    sing = ember.tensor(a[0].tolist(), dtype=getattr(ember, dt))
    sing[:, 5] = 0
    with pytest.raises(ember.linalg.LinAlgError, match="singular"):
        ember.linalg.inv(sing)


@pytest.mark.parametrize("k", [6, 130])  # below 128, B's own layout; from 128 on, the transposed problem
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("a_layout", ["rowmajor", "colmajor", "expanded"])
def test_solve_triangular_layouts_and_strides(dtype: str, a_layout: str, k: int) -> None:
    """A read in place when column-major (its other triangle then), X column-major with PyTorch's
    strides; left and right, upper and lower, unit diagonal, a batch."""
    rng = np.random.default_rng(5)
    a_np = rng.standard_normal((3, k, k)) / k + 6 * np.eye(k)  # well conditioned, unit diagonal too
    if dtype.startswith("complex"):
        a_np = a_np + 1j * rng.standard_normal((3, k, k)) / k
    b_left, b_right = rng.standard_normal((3, k, 2)), rng.standard_normal((3, 2, k))

    def solve(lib: Any, upper: bool, left: bool, unit: bool) -> Any:
        dt = getattr(lib, dtype)
        a = lib.tensor(a_np).to(dt)
        if a_layout == "colmajor":
            a = a.mT.contiguous().mT
        elif a_layout == "expanded":
            a = a[:1].expand(3, k, k)
        b = lib.tensor(b_left if left else b_right).to(dt)
        return lib.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)

    for upper in (True, False):
        for left in (True, False):
            for unit in (False, True):
                got, want = solve(ember, upper, left, unit), solve(torch, upper, left, unit)
                assert got.stride() == want.stride()
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
