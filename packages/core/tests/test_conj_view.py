"""PyTorch's lazy conjugation (issue 22 point 4): conj() is a view with the conjugate bit, every
op sees the conjugated values (the conjugate fallback in the generated bindings), writes into a
conjugate view store conjugates, and the bit survives views, save/load and autograd as in
PyTorch 2.13."""

from __future__ import annotations

import io
import pickle

import ember
import pytest
from sibling import load  # conftest.py registers it

torch = pytest.importorskip("torch")

VALUES = [[1 + 2j, -3.5 + 0.25j, 0.5j], [2j, -1 + 0j, 4.5 - 1e-3j]]


def pair(dtype: str = "complex64", values: list = VALUES) -> tuple:
    return ember.tensor(values, dtype=getattr(ember, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


def same(e: ember.Tensor, t: torch.Tensor) -> None:
    assert str(e.dtype) == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    got = torch.tensor(e.tolist(), dtype=t.dtype).reshape(t.shape)
    torch.testing.assert_close(got, t.resolve_conj(), rtol=1.3e-6, atol=1e-5)


def values(e: ember.Tensor) -> torch.Tensor:
    return torch.tensor(e.tolist(), dtype=torch.complex128)


raises_like = load("raise_checks").raises_like


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_conj_is_a_view_with_the_bit(dtype: str) -> None:
    e, t = pair(dtype)
    ce, ct = e.conj(), t.conj()
    assert ce.is_conj() and ember.is_conj(ce) and ct.is_conj()
    assert ce.data_ptr() == e.data_ptr() and ce._base is e and ce._is_view()
    same(ce, ct)
    back = ce.conj()
    assert not back.is_conj() and back.data_ptr() == e.data_ptr() and back is not e
    same(back, t)
    r = ce.resolve_conj()
    assert not r.is_conj() and r.data_ptr() != e.data_ptr()
    same(r, ct)
    assert ce.resolve_conj().resolve_conj() is not None and e.resolve_conj() is e
    p = ember.conj_physical(ce)  # computes: conj of the values, without the bit
    assert not p.is_conj()
    same(p, torch.conj_physical(ct))


def test_real_tensors_conj_is_self() -> None:
    x = ember.tensor([1.0, -2.0])
    assert x.conj() is x and not x.is_conj() and ember.conj_physical(x) is x


def _empty_like(L, y, x):  # noqa: N803 (L: the library)
    return L.empty_like(y)


@pytest.mark.parametrize("f", [
    lambda L, y, x: y.clone(), lambda L, y, x: y.contiguous(), lambda L, y, x: y.view(3, 2),
    lambda L, y, x: y.t(), lambda L, y, x: y[0], lambda L, y, x: y[:, 1:], lambda L, y, x: y[[0]],
    lambda L, y, x: y.detach(), lambda L, y, x: y + 0, lambda L, y, x: y.to(L.complex128),
    _empty_like, lambda L, y, x: y.reshape(-1), lambda L, y, x: y.unsqueeze(0),
    lambda L, y, x: y.transpose(0, 1).contiguous(), lambda L, y, x: y.mT, lambda L, y, x: x.mH,
    lambda L, y, x: y.mH, lambda L, y, x: y.expand(2, 2, 3), lambda L, y, x: y.unbind(0)[1],
    lambda L, y, x: L.cat([y, x]), lambda L, y, x: L.stack([y, x]), lambda L, y, x: y.select(1, 2),
])
def test_which_results_keep_the_bit(f) -> None:
    e, t = pair()
    re, rt = f(ember, e.conj(), e), f(torch, t.conj(), t)
    assert re.is_conj() == rt.is_conj()
    shares_t = rt.data_ptr() == t.data_ptr() or rt._base is t
    shares_e = re.data_ptr() == e.data_ptr() or re._base is e
    if rt.numel():
        assert shares_e == shares_t
        if f is not _empty_like:
            same(re, rt)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("f", [
    lambda L, y, x: y + x, lambda L, y, x: x * y, lambda L, y, x: y - 1, lambda L, y, x: 2 * y,
    lambda L, y, x: y / (x + 3), lambda L, y, x: -y, lambda L, y, x: y.abs(), lambda L, y, x: abs(y),
    lambda L, y, x: L.exp(y), lambda L, y, x: y.sum(), lambda L, y, x: y.sum(1), lambda L, y, x: y.mean(0),
    lambda L, y, x: y @ x.mT, lambda L, y, x: L.matmul(x, y.mT), lambda L, y, x: L.mm(y, x.mH),
    lambda L, y, x: L.bmm(y.unsqueeze(0), x.mT.unsqueeze(0)), lambda L, y, x: y == x.conj(),
    lambda L, y, x: y[[1, 0]], lambda L, y, x: y[y.real > 0], lambda L, y, x: y.angle(),
    lambda L, y, x: L.where(y.real > 0, y, x), lambda L, y, x: L.view_as_real(y.resolve_conj()),
    lambda L, y, x: y.real, lambda L, y, x: y.imag, lambda L, y, x: L.real(y), lambda L, y, x: L.imag(y),
    lambda L, y, x: y.flip(0), lambda L, y, x: L.cat([y, x], 1), lambda L, y, x: y.sqrt(),
    lambda L, y, x: y.conj_physical(), lambda L, y, x: L.dot(y[0], x[1]), lambda L, y, x: L.vdot(y[0], x[1]),
])
def test_ops_see_the_conjugated_values(dtype: str, f) -> None:
    e, t = pair(dtype)
    same(f(ember, e.conj(), e), f(torch, t.conj(), t))


def _writes():
    return [
        lambda L, v: v.add_(1j), lambda L, v: v.mul_(2 - 1j), lambda L, v: v.copy_(L.ones(2, 3) * (1 + 1j)),
        lambda L, v: v.fill_(3 - 2j), lambda L, v: v.zero_(), lambda L, v: v.__setitem__(0, 5 + 5j),
        lambda L, v: v.__setitem__((1, slice(0, 2)), L.tensor([1 + 1j, 2 - 2j], dtype=v.dtype)),
        lambda L, v: v.__setitem__(([0, 1], [2, 0]), L.tensor([7j, 8 + 1j], dtype=v.dtype)),
        lambda L, v: v.__setitem__(v.real > 0, 9 + 9j), lambda L, v: v.conj_physical_(),
        lambda L, v: v.neg_(), lambda L, v: v.sqrt_(), lambda L, v: v.t_(),
    ]


@pytest.mark.parametrize("i", range(13))
def test_writes_into_a_conj_view_store_conjugates(i: int) -> None:
    f = _writes()[i]
    e, t = pair()
    ve, vt = e.conj(), t.conj()
    re, rt = f(ember, ve), f(torch, vt)
    same(e, t)
    same(ve, vt)
    if rt is not None:
        assert re is ve and rt is vt


@pytest.mark.parametrize("op", ["iadd", "imul", "isub", "itruediv"])
def test_python_inplace_operators(op: str) -> None:
    e, t = pair()
    ve, vt = e.conj(), t.conj()
    import operator

    re, rt = getattr(operator, op)(ve, 1 + 2j), getattr(operator, op)(vt, 1 + 2j)
    assert re is ve and rt is vt
    same(e, t)


def test_out_into_a_conj_view() -> None:
    e, t = pair()
    ae, at = pair()
    oe, ot = e.conj(), t.conj()
    re = ember.add(ae, 1, out=oe)
    rt = torch.add(at, 1, out=ot)
    assert re is oe and rt is ot
    same(e, t)
    ember.mul(ae.conj(), ae, out=oe)
    torch.mul(at.conj(), at, out=ot)
    same(e, t)


def test_copy_between_views() -> None:
    e, t = pair()
    for x in (e, t):
        x.conj().copy_(x.conj())  # the same values: nothing changes
    same(e, t)
    d_e, d_t = ember.zeros(2, 3, dtype=ember.complex64), torch.zeros(2, 3, dtype=torch.complex64)
    d_e.copy_(e.conj())
    d_t.copy_(t.conj())
    same(d_e, d_t)


def test_printing_tolist_item() -> None:
    e, t = pair()
    assert repr(e.conj()) == repr(t.conj())
    torch.testing.assert_close(values(e.conj()), t.conj().resolve_conj().to(torch.complex128))
    assert e.conj()[0, 0].item() == pytest.approx(t.conj()[0, 0].item())
    assert complex(e.conj()[1, 0]) == pytest.approx(complex(t.conj()[1, 0]))


def test_numpy_dlpack_view_as_real_refuse() -> None:
    e, t = pair()
    raises_like(lambda: e.conj().numpy(), lambda: t.conj().numpy())
    raises_like(lambda: e.conj().__dlpack__(), lambda: t.conj().__dlpack__())
    raises_like(lambda: ember.view_as_real(e.conj()), lambda: torch.view_as_real(t.conj()))
    raises_like(lambda: e.conj().view(ember.float32), lambda: t.conj().view(torch.float32))
    raises_like(lambda: e.conj().view(ember.complex64), lambda: t.conj().view(torch.complex64))
    assert (e.conj().resolve_conj().numpy() == t.conj().resolve_conj().numpy()).all()


def test_save_load_keeps_the_bit() -> None:
    e, _ = pair()
    buf = io.BytesIO()
    ember.save({"c": e.conj(), "x": e}, buf)
    buf.seek(0)
    r = ember.load(buf)
    assert r["c"].is_conj() and r["c"].data_ptr() == r["x"].data_ptr()
    torch.testing.assert_close(values(r["c"]), values(e.conj()))
    # a file PyTorch wrote
    t = torch.tensor(VALUES)
    buf = io.BytesIO()
    torch.save({"c": t.conj()}, buf)
    buf.seek(0)
    got = ember.load(buf)["c"]
    assert got.is_conj()
    torch.testing.assert_close(values(got), t.conj().resolve_conj().to(torch.complex128))
    # and PyTorch reads ember's
    buf = io.BytesIO()
    ember.save(e.conj(), buf)
    buf.seek(0)
    back = torch.load(buf)
    assert back.is_conj()
    torch.testing.assert_close(back.resolve_conj(), torch.tensor(VALUES).conj().resolve_conj())
    p = pickle.loads(pickle.dumps(e.conj()))
    torch.testing.assert_close(values(p), values(e.conj()))


def test_real_and_imag_of_a_conj_view() -> None:
    e, t = pair()
    same(e.conj().real, t.conj().real)
    same(e.conj().imag, t.conj().imag)
    ve, vt = e.conj(), t.conj()
    ve.real = ember.ones(2, 3)
    vt.real = torch.ones(2, 3)
    ve.imag = ember.full((2, 3), 2.0)
    vt.imag = torch.full((2, 3), 2.0)
    same(e, t)
    same(ve, vt)


def test_autograd_through_conj() -> None:
    w = [[2 + 1j, 1j, -1], [0.5, 1 - 1j, 3j]]
    xe = ember.tensor(VALUES, dtype=ember.complex128, requires_grad=True)
    xt = torch.tensor(VALUES, dtype=torch.complex128, requires_grad=True)
    ce, ct = xe.conj(), xt.conj()
    assert type(ce.grad_fn).__name__ == type(ct.grad_fn).__name__ == "ConjBackward0"
    (ce * ember.tensor(w, dtype=ember.complex128)).abs().sum().backward()
    (ct * torch.tensor(w, dtype=torch.complex128)).abs().sum().backward()
    same(xe.grad, xt.grad)
    ye = ember.tensor(VALUES, dtype=ember.complex128, requires_grad=True)
    yt = torch.tensor(VALUES, dtype=torch.complex128, requires_grad=True)
    (ye.conj() @ ye.mT).abs().sum().backward()
    (yt.conj() @ yt.mT).abs().sum().backward()
    same(ye.grad, yt.grad)
    ze = ember.tensor(VALUES, dtype=ember.complex128, requires_grad=True)
    assert ember.autograd.gradcheck(lambda z: (z.conj() * z.conj().exp()).real.sum(), (ze,))


def test_fast_path_has_no_live_views_after_release() -> None:
    e, _ = pair()
    v = e.conj()
    torch.testing.assert_close(values(v + 0), values(e).conj())
    del v  # no conj views alive: the bindings skip the fallback (one counter test)
    torch.testing.assert_close(values(e + 0), values(e))


def test_small_names() -> None:
    e, t = pair()
    same(ember.view_as_real_copy(e.conj()), torch.view_as_real_copy(t.conj()))
    r = ember.view_as_real_copy(e)
    assert r._base is None and r.data_ptr() != e.data_ptr()
    f = [[1.0, 2.0], [3.0, -4.0]]
    same(ember.view_as_complex_copy(ember.tensor(f)), torch.view_as_complex_copy(torch.tensor(f)))
    ce, ct = e.clone(), t.clone()
    assert ember.conj_physical_(ce) is ce and torch.conj_physical_(ct) is ct
    same(ce, ct)
    x = ember.tensor([1.0, -2.0])
    assert ember.conj_physical_(x) is x and x.tolist() == [1.0, -2.0]


@pytest.mark.parametrize("write", [lambda v: v.mul_(2 + 1j), lambda v: v.__imul__(2 + 1j),
                                   lambda v: v.__setitem__(0, 5 - 1j), lambda v: v.__setitem__([1], 3j)])
def test_gradient_through_a_write_into_a_conj_view(write) -> None:
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(VALUES[0], dtype=lib.complex128, requires_grad=True)
        y = x * 1
        write(y.conj())
        (y * lib.tensor([1j, 2, -1], dtype=lib.complex128)).abs().sum().backward()
        grads.append(x.grad)
    same(grads[0], grads[1])
