"""Complex dtypes (issue 22 point 4) against PyTorch 2.13: the dtype objects and promotion,
creation and conversion, printing, serialization, DLPack, views and copies, and the complex
ops (view_as_real / view_as_complex, real / imag, complex, polar, conj, angle) with gradients.
Ops that do not compute on complex tensors yet must raise PyTorch's "not implemented" error."""

from __future__ import annotations

import functools
import io
import math
import warnings

import ember
import numpy as np
import pytest
from sibling import load  # conftest.py registers it

torch = pytest.importorskip("torch")

CDTYPES = ["complex64", "complex128"]
ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
       "complex64", "complex128"]
VALUES = [[1 + 2j, -3.5 + 0.25j, 0j], [2j, -1, 4.5 - 1e-3j]]


def pair(dtype: str = "complex64", values: list = VALUES) -> tuple:
    return ember.tensor(values, dtype=getattr(ember, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


def same(e: ember.Tensor, t: torch.Tensor) -> None:
    assert str(e.dtype) == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    got = torch.tensor(e.tolist(), dtype=t.dtype).reshape(t.shape)
    torch.testing.assert_close(got, t.resolve_conj(), equal_nan=True, rtol=1.3e-6, atol=1e-5)


raises_like = functools.partial(load("raise_checks").raises_like, first_line=True)


# ---- the dtypes ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["complex64", "complex128", "cfloat", "cdouble"])
def test_dtype_objects(name: str) -> None:
    e, t = getattr(ember, name), getattr(torch, name)
    assert repr(e) == repr(t) and str(e) == str(t)
    assert (e.is_complex, e.is_floating_point, e.is_signed, e.itemsize) == (
        t.is_complex, t.is_floating_point, t.is_signed, t.itemsize)
    assert str(e.to_real()) == str(t.to_real()) and str(e.to_complex()) == str(t.to_complex())


@pytest.mark.parametrize("name", ["float32", "float64", "bfloat16", "int64", "bool"])
def test_to_complex_of_real_dtypes(name: str) -> None:
    e, t = getattr(ember, name), getattr(torch, name)
    assert str(e.to_real()) == str(t.to_real())
    try:
        want = str(t.to_complex())
    except RuntimeError as err:
        with pytest.raises(RuntimeError, match=str(err)):
            e.to_complex()
    else:
        assert str(e.to_complex()) == want


@pytest.mark.parametrize("a", ALL)
@pytest.mark.parametrize("b", CDTYPES)
def test_promote_types_and_can_cast(a: str, b: str) -> None:
    ea, eb, ta, tb = getattr(ember, a), getattr(ember, b), getattr(torch, a), getattr(torch, b)
    assert str(ember.promote_types(ea, eb)) == str(torch.promote_types(ta, tb))
    assert str(ember.promote_types(eb, ea)) == str(torch.promote_types(tb, ta))
    assert ember.can_cast(ea, eb) == torch.can_cast(ta, tb)
    assert ember.can_cast(eb, ea) == torch.can_cast(tb, ta)


@pytest.mark.parametrize("a", ["bool", "int64", "bfloat16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("other", ["number", "0d-c128", "0d-c64", "dim-c64"])
def test_result_type(a: str, other: str) -> None:
    def make(lib):
        x = lib.zeros(2, dtype=getattr(lib, a))
        if other == "number":
            return x, 1j
        dt = getattr(lib, "complex128" if other == "0d-c128" else "complex64")
        return x, lib.zeros(() if other.startswith("0d") else 2, dtype=dt)
    assert str(ember.result_type(*make(ember))) == str(torch.result_type(*make(torch)))


def test_result_type_with_float64_default() -> None:
    old = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.result_type(ember.zeros(2, dtype=ember.int64), 1j) == ember.complex128
        assert ember.tensor([1j]).dtype == ember.complex128
    finally:
        ember.set_default_dtype(old)


@pytest.mark.parametrize("name", CDTYPES)
def test_finfo(name: str) -> None:
    e, t = ember.finfo(getattr(ember, name)), torch.finfo(getattr(torch, name))
    assert repr(e) == repr(t)
    assert (e.bits, e.eps, e.max, e.tiny, e.resolution, e.dtype) == (t.bits, t.eps, t.max, t.tiny, t.resolution,
                                                                      t.dtype)


def test_iinfo_rejects_complex() -> None:
    raises_like(lambda: ember.iinfo(ember.complex64), lambda: torch.iinfo(torch.complex64))


# ---- creation and conversion -------------------------------------------------------------

@pytest.mark.parametrize("data", [[1 + 2j, 3], [[1, 2.5], [1j, True]], 2 - 1j, [], [[0j]]])
def test_tensor_from_python(data) -> None:
    e, t = ember.tensor(data), torch.tensor(data)
    same(e, t)
    assert e.tolist() == t.tolist()


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_tensor_of_complex_with_real_dtype_raises(dtype: str) -> None:
    raises_like(lambda: ember.tensor([1 + 2j, -3j], dtype=getattr(ember, dtype)),
                lambda: torch.tensor([1 + 2j, -3j], dtype=getattr(torch, dtype)))


def test_tensor_of_complex_tensor_elements() -> None:
    e = ember.tensor([ember.tensor(1 + 1j, dtype=ember.complex128), 2.0])
    t = torch.tensor([torch.tensor(1 + 1j, dtype=torch.complex128), 2.0])
    same(e, t)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_factories(dtype: str) -> None:
    ed, td = getattr(ember, dtype), getattr(torch, dtype)
    same(ember.zeros(2, 3, dtype=ed), torch.zeros(2, 3, dtype=td))
    same(ember.ones(2, dtype=ed), torch.ones(2, dtype=td))
    same(ember.full((2,), 1 - 2j, dtype=ed), torch.full((2,), 1 - 2j, dtype=td))
    same(ember.full_like(ember.zeros(3, dtype=ed), 2j), torch.full_like(torch.zeros(3, dtype=td), 2j))
    assert ember.empty(4, dtype=ed).dtype == ed
    assert ember.zeros_like(ember.ones(2), dtype=ed).dtype == ed


def test_full_infers_complex() -> None:
    same(ember.full((2,), 1j), torch.full((2,), 1j))


def test_fill_real_tensor_with_complex() -> None:
    same(ember.zeros(2).fill_(3 + 0j), torch.zeros(2).fill_(3 + 0j))
    raises_like(lambda: ember.zeros(2).fill_(1j), lambda: torch.zeros(2).fill_(1j))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_randn_and_rand(dtype: str) -> None:
    ed, td = getattr(ember, dtype), getattr(torch, dtype)
    x = ember.randn(200_000, dtype=ed)
    assert x.dtype == ed
    a = torch.tensor(x.tolist(), dtype=td)
    # real and imaginary parts each with variance 1/2 (PyTorch's complex normal)
    assert abs(a.real.var().item() - 0.5) < 0.02 and abs(a.imag.var().item() - 0.5) < 0.02
    assert abs(a.real.mean().item()) < 0.02 and abs(a.imag.mean().item()) < 0.02
    u = torch.tensor(ember.rand(1000, dtype=ed).tolist(), dtype=td)
    assert 0 <= u.real.min() and u.real.max() < 1 and 0 <= u.imag.min() and u.imag.max() < 1


def test_randn_matches_torch_stream() -> None:
    ember.manual_seed(3)
    torch.manual_seed(3)
    same(ember.randn(40, dtype=ember.complex64), torch.randn(40, dtype=torch.complex64))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_item_and_scalars(dtype: str) -> None:
    e, t = pair(dtype)
    assert e[0, 1].item() == t[0, 1].item()
    assert type(e[0, 1].item()) is complex
    assert complex(e[1, 0]) == complex(t[1, 0])
    assert float(e[1, 1]) == float(t[1, 1]) and int(e[1, 1]) == int(t[1, 1])  # no imaginary part
    raises_like(lambda: float(e[0, 0]), lambda: float(t[0, 0]))
    raises_like(lambda: int(e[0, 0]), lambda: int(t[0, 0]))
    assert bool(e[0, 2]) == bool(t[0, 2]) and bool(e[1, 0]) == bool(t[1, 0])


@pytest.mark.parametrize("dtype", CDTYPES)
def test_numpy_round_trip(dtype: str) -> None:
    e, _ = pair(dtype)
    a = e.numpy()
    assert a.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(a, np.array(VALUES, dtype=dtype))
    b = ember.from_numpy(a)
    assert b.dtype == e.dtype and b.tolist() == e.tolist()
    a[0, 0] = 7j  # shared memory
    assert e[0, 0].item() == 7j
    same(ember.as_tensor(np.array([1j, 2], dtype=dtype)), torch.as_tensor(np.array([1j, 2], dtype=dtype)))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("values", [VALUES, [[1e-5 + 1j, 1000 - 2j]], [[1 + 1j, -1 - 1j]], [[math.nan + 1j, math.inf]],
                                    [0.5j], [[1e10 + 1j]], 3 + 4j])
def test_repr(dtype: str, values) -> None:
    e, t = pair(dtype, values)
    assert repr(e) == repr(t)


def test_repr_requires_grad_and_summarized() -> None:
    e = ember.zeros(2000, dtype=ember.complex64)
    t = torch.zeros(2000, dtype=torch.complex64)
    assert repr(e) == repr(t)
    e, t = pair("complex128")
    assert repr(e.requires_grad_()) == repr(t.requires_grad_())


@pytest.mark.parametrize("dtype", CDTYPES)
def test_save_load(dtype: str, tmp_path) -> None:
    e, t = pair(dtype)
    buf = io.BytesIO()
    ember.save({"x": e, "v": e[1]}, buf)
    buf.seek(0)
    back = ember.load(buf)
    assert back["x"].tolist() == e.tolist() and back["x"].dtype == e.dtype
    buf.seek(0)
    from_torch = torch.load(buf)  # ember's checkpoint is PyTorch's format
    assert from_torch["x"].tolist() == t.tolist()
    path = tmp_path / "t.pt"
    had_slotnames = "__slotnames__" in vars(torch.Tensor)
    torch.save(t, path)
    if not had_slotnames:  # pickle's cache on torch.Tensor would show up in test_api_coverage's walk
        vars(torch.Tensor).get("__slotnames__") is not None and delattr(torch.Tensor, "__slotnames__")
    assert ember.load(path).tolist() == t.tolist()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_dlpack(dtype: str) -> None:
    e, t = pair(dtype)
    tt = torch.from_dlpack(e)
    assert tt.dtype == t.dtype and tt.tolist() == t.tolist()
    ee = ember.from_dlpack(t)
    assert ee.dtype == e.dtype and ee.tolist() == e.tolist()
    np.testing.assert_array_equal(np.from_dlpack(e), t.numpy())


@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("dst", CDTYPES)
def test_casts_to_complex(src: str, dst: str) -> None:
    vals = [[0, 1, 2], [3, 1, 0]] if src in ("bool", "uint8") else [[-1.5, 0, 2.25], [3, -4, 100]]
    if src.startswith("complex"):
        vals = VALUES
    e = ember.tensor(vals).to(getattr(ember, src))
    t = torch.tensor(vals).to(getattr(torch, src))
    same(e.to(getattr(ember, dst)), t.to(getattr(torch, dst)))
    same(e.t().to(getattr(ember, dst)), t.t().to(getattr(torch, dst)))  # strided source


@pytest.mark.parametrize("src", CDTYPES)
@pytest.mark.parametrize("dst", ALL)
def test_casts_from_complex_warn(src: str, dst: str) -> None:
    e, t = pair(src, [[1 + 2j, -3.5 + 0.25j, 0j], [2j, -1, 4.5 - 1e-3j]])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = e.to(getattr(ember, dst))
    if not dst.startswith("complex"):
        assert any("Casting complex values to real discards the imaginary part" in str(x.message) for x in w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(r, t.to(getattr(torch, dst)))


def test_copy_clone_contiguous_views() -> None:
    e, t = pair("complex128")
    same(e.clone(), t.clone())
    same(e.t().contiguous(), t.t().contiguous())
    same(e.t(), t.t())
    same(e[1], t[1])
    same(e[:, 1:], t[:, 1:])
    same(e[:, ::2], t[:, ::2])
    same(e.permute(1, 0), t.permute(1, 0))
    same(e[0].expand(3, 3), t[0].expand(3, 3))
    same(e.reshape(3, 2), t.reshape(3, 2))
    same(e.view(6), t.view(6))
    same(e.flip(0), t.flip(0))
    same(e.unsqueeze(1), t.unsqueeze(1))
    dst_e, dst_t = ember.zeros(2, 3, dtype=ember.complex64), torch.zeros(2, 3, dtype=torch.complex64)
    same(dst_e.copy_(e), dst_t.copy_(t))
    same(ember.zeros(3, 2, dtype=ember.complex128).copy_(e.t()), torch.zeros(3, 2, dtype=torch.complex128).copy_(t.t()))
    same(ember.zeros(2, 3, dtype=ember.complex64).copy_(ember.ones(3)),
         torch.zeros(2, 3, dtype=torch.complex64).copy_(torch.ones(3)))
    big_e = ember.tensor([[1j] * 70] * 70, dtype=ember.complex128)  # the tiled transpose copy
    big_t = torch.tensor([[1j] * 70] * 70, dtype=torch.complex128)
    same(big_e.t().contiguous(), big_t.t().contiguous())


def test_view_dtype() -> None:
    e, t = pair("complex64")
    same(e.view(ember.float32), t.view(torch.float32))
    same(ember.arange(8.0).view(ember.complex64), torch.arange(8.0).view(torch.complex64))
    same(ember.arange(8.0, dtype=ember.float64).view(ember.complex128),
         torch.arange(8.0, dtype=torch.float64).view(torch.complex128))


def test_cat_stack_where_indexing() -> None:
    e, t = pair("complex64")
    same(ember.cat([e, e[:1]]), torch.cat([t, t[:1]]))
    same(ember.cat([e, ember.ones(1, 3)]), torch.cat([t, torch.ones(1, 3)]))
    same(ember.stack([e, e], 1), torch.stack([t, t], 1))
    m_e, m_t = ember.tensor([[True, False, True]] * 2), torch.tensor([[True, False, True]] * 2)
    same(ember.where(m_e, e, e.flip(1)), torch.where(m_t, t, t.flip(1)))
    same(e[m_e], t[m_t])
    idx_e, idx_t = ember.tensor([2, 0]), torch.tensor([2, 0])
    same(e[:, idx_e], t[:, idx_t])
    same(e.index_select(1, idx_e), t.index_select(1, idx_t))
    same(e.gather(1, ember.tensor([[0], [2]])), t.gather(1, torch.tensor([[0], [2]])))
    se, st = e.clone(), t.clone()
    se[0, 1] = 5 - 5j
    st[0, 1] = 5 - 5j
    same(se, st)
    se[m_e] = 0j
    st[m_t] = 0j
    same(se, st)


# ---- ops that do not take complex yet raise PyTorch's kind of error, never crash -------------

@pytest.mark.parametrize("name,call", [
    ("sum", lambda lib, x: x.sum()), ("clamp", lambda lib, x: x.clamp(0, 1)), ("sort", lambda lib, x: x.sort()),
    ("max", lambda lib, x: x.max()), ("cumsum", lambda lib, x: x.cumsum(0)), ("lt", lambda lib, x: x < x),
    ("argmax", lambda lib, x: x.argmax()), ("mean", lambda lib, x: x.mean()), ("floor", lambda lib, x: x.floor()),
    ("fmod", lambda lib, x: x.fmod(2)), ("atan2", lambda lib, x: x.atan2(x)), ("bitwise", lambda lib, x: x & x),
    ("remainder", lambda lib, x: x % 2), ("prod", lambda lib, x: x.prod()),
])
def test_unimplemented_ops_raise(name: str, call) -> None:
    """No crash and no silent result: each either computes as torch does or raises an error."""
    e, t = pair("complex64")
    try:
        r = call(ember, e)
    except (RuntimeError, TypeError, NotImplementedError, ValueError):
        return
    expected = call(torch, t)
    if isinstance(expected, torch.Tensor):
        same(r, expected)


# ---- pointwise arithmetic and matrix products ---------------------------------------------

OTHER = [[0.5 - 1j, 2, -1j], [1 + 1j, 3 - 0.5j, -2]]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name,call", [
    ("add", lambda lib, x, y: x + y), ("sub", lambda lib, x, y: x - y), ("mul", lambda lib, x, y: x * y),
    ("div", lambda lib, x, y: x / y), ("add-alpha", lambda lib, x, y: lib.add(x, y, alpha=2 - 1j)),
    ("sub-alpha", lambda lib, x, y: lib.sub(x, y, alpha=3)), ("eq", lambda lib, x, y: x == y),
    ("ne", lambda lib, x, y: x != y), ("mul-scalar", lambda lib, x, y: x * (2 - 3j)),
    ("rmul-real-scalar", lambda lib, x, y: 2.5 * x), ("add-real-tensor", lambda lib, x, y: x + y.real),
    ("real-times-complex-number", lambda lib, x, y: y.real * 1j), ("div-scalar", lambda lib, x, y: x / 2j),
    ("div-by-zero", lambda lib, x, y: x / 0), ("neg", lambda lib, x, y: -x), ("reciprocal", lambda lib, x, y: x.reciprocal()),
    ("exp", lambda lib, x, y: x.exp()), ("log", lambda lib, x, y: lib.log(y)), ("sqrt", lambda lib, x, y: y.sqrt()),
    ("sin", lambda lib, x, y: x.sin()), ("cos", lambda lib, x, y: lib.cos(x)), ("tanh", lambda lib, x, y: x.tanh()),
    ("sigmoid", lambda lib, x, y: x.sigmoid()), ("square", lambda lib, x, y: x.square()),
    ("abs", lambda lib, x, y: x.abs()), ("abs-strided", lambda lib, x, y: lib.abs(x.t())),
    ("mul-broadcast", lambda lib, x, y: x * y[0]), ("mul-strided", lambda lib, x, y: x.t() * y.t()),
    ("inplace", lambda lib, x, y: x.clone().mul_(y).add_(1j)),
])
def test_pointwise(dtype: str, name: str, call) -> None:
    (ex, tx), (ey, ty) = pair(dtype), pair(dtype, OTHER)
    same(call(ember, ex, ey), call(torch, tx, ty))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name,call", [
    ("sum", lambda lib, x: x.sum()), ("sum-dim", lambda lib, x: x.sum(0)), ("sum-keepdim", lambda lib, x: x.sum(1, True)),
    ("sum-strided", lambda lib, x: x.t().sum(0)), ("sum-0d", lambda lib, x: x[0, 0].sum()),
    ("sum-dtype", lambda lib, x: x.sum(dtype=lib.complex128)), ("mean", lambda lib, x: x.mean()),
    ("mean-dim", lambda lib, x: lib.mean(x, 1)),
])
def test_sum_mean(dtype: str, name: str, call) -> None:
    e, t = pair(dtype)
    same(call(ember, e), call(torch, t))


def test_sum_mean_gradients() -> None:
    def run(lib):
        x = lib.tensor(CV, dtype=lib.complex128).requires_grad_()
        (lib.view_as_real(x.sum(0) * lib.tensor([1j, 2, 3 - 1j])).sum() + lib.view_as_real(x.mean()).sum()).backward()
        return x.grad
    same(run(ember), run(torch))


def test_abs_errors_and_out() -> None:
    e, t = pair("complex64")
    raises_like(lambda: e.abs_(), lambda: t.abs_())
    oe, ot = ember.empty(0, dtype=ember.float64), torch.empty(0, dtype=torch.float64)
    same(ember.abs(e, out=oe), torch.abs(t, out=ot))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_matrix_products(dtype: str) -> None:
    (ex, tx), (ey, ty) = pair(dtype), pair(dtype, OTHER)
    same(ember.mm(ex, ey.t()), torch.mm(tx, ty.t()))
    same(ex.t() @ ey, tx.t() @ ty)
    same(ember.matmul(ex, ey.t().contiguous()), torch.matmul(tx, ty.t().contiguous()))
    same(ember.bmm(ember.stack([ex, ey]), ember.stack([ey.t(), ex.t()])),
         torch.bmm(torch.stack([tx, ty]), torch.stack([ty.t(), tx.t()])))
    raises_like(lambda: ember.mm(ex, ember.ones(3, 2)), lambda: torch.mm(tx, torch.ones(3, 2)))
    same(ember.dot(ex[0], ey[1]), torch.dot(tx[0], ty[1]))
    same(ember.vdot(ex[0], ey[1]), torch.vdot(tx[0], ty[1]))
    same(ember.mv(ex, ey[0]), torch.mv(tx, ty[0]))
    same(ember.outer(ex[0], ey[1]), torch.outer(tx[0], ty[1]))
    same(ember.einsum("ij,kj->ik", ex, ey), torch.einsum("ij,kj->ik", tx, ty))


# ---- complex views and functions --------------------------------------------------------

@pytest.mark.parametrize("dtype", CDTYPES)
def test_view_as_real_and_back(dtype: str) -> None:
    e, t = pair(dtype)
    for f in (lambda x: x, lambda x: x.t(), lambda x: x[:, 1:], lambda x: x[1], lambda x: x[0, 0]):
        re, rt = ember.view_as_real(f(e)), torch.view_as_real(f(t))
        same(re, rt)
        assert re.stride() == rt.stride() and re.storage_offset() == rt.storage_offset()
    r = ember.view_as_real(e)
    r[0, 0, 1] = 9.0  # a view: writes reach the complex tensor
    assert e[0, 0].item() == 1 + 9j
    c = ember.view_as_complex(r)
    assert c.tolist() == e.tolist() and c.stride() == e.stride()


@pytest.mark.parametrize("make", [
    lambda lib: lib.zeros(3), lambda lib: lib.zeros(()), lambda lib: lib.zeros(3, 3)[:, :2],
    lambda lib: lib.zeros(3, 2, dtype=lib.int64), lambda lib: lib.zeros(7)[1:5].view(2, 2),
    lambda lib: lib.zeros(2, 4)[:, 1:3], lambda lib: lib.zeros(2, 2).t(),
])
def test_view_as_complex_errors(make) -> None:
    raises_like(lambda: ember.view_as_complex(make(ember)), lambda: torch.view_as_complex(make(torch)))


def test_view_as_real_of_real_raises() -> None:
    raises_like(lambda: ember.view_as_real(ember.zeros(2)), lambda: torch.view_as_real(torch.zeros(2)))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_real_imag(dtype: str) -> None:
    e, t = pair(dtype)
    same(e.real, t.real)
    same(e.imag, t.imag)
    same(ember.real(e.t()), torch.real(t.t()))
    same(ember.imag(e[1]), torch.imag(t[1]))
    assert e.imag.stride() == t.imag.stride() and e.imag.storage_offset() == t.imag.storage_offset()
    e.imag[0] = 0.0
    t.imag[0] = 0.0
    same(e, t)
    e.real = ember.ones(3)
    t.real = torch.ones(3)
    same(e, t)
    x = ember.ones(2)
    assert ember.real(x) is x and x.real is x
    raises_like(lambda: ember.ones(2).imag, lambda: torch.ones(2).imag)
    raises_like(lambda: ember.imag(ember.ones(2)), lambda: torch.imag(torch.ones(2)))


@pytest.mark.parametrize("fn", ["complex", "polar"])
def test_complex_and_polar(fn: str) -> None:
    a, b = [[1.0, -2.0], [0.5, 3.0]], [0.25, -1.5]
    for dt in ("float32", "float64"):
        e = getattr(ember, fn)(ember.tensor(a, dtype=getattr(ember, dt)), ember.tensor(b, dtype=getattr(ember, dt)))
        t = getattr(torch, fn)(torch.tensor(a, dtype=getattr(torch, dt)), torch.tensor(b, dtype=getattr(torch, dt)))
        same(e, t)
    raises_like(lambda: getattr(ember, fn)(ember.ones(2), ember.ones(2, dtype=ember.float64)),
                lambda: getattr(torch, fn)(torch.ones(2), torch.ones(2, dtype=torch.float64)))
    raises_like(lambda: getattr(ember, fn)(ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64)),
                lambda: getattr(torch, fn)(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64)))
    out_e, out_t = ember.empty(0, dtype=ember.complex64), torch.empty(0, dtype=torch.complex64)
    getattr(ember, fn)(ember.ones(2), ember.ones(2), out=out_e)
    getattr(torch, fn)(torch.ones(2), torch.ones(2), out=out_t)
    same(out_e, out_t)


@pytest.mark.parametrize("dtype", CDTYPES + ["float32", "int64"])
def test_conj_and_friends(dtype: str) -> None:
    vals = VALUES if dtype in CDTYPES else [[1, -2, 3], [0, 4, -5]]
    e, t = pair(dtype, vals)
    same(ember.conj_physical(e), torch.conj_physical(t))
    same(ember.conj(e), torch.conj(t))
    same(e.conj(), t.conj())
    same(ember.resolve_conj(e), torch.resolve_conj(t))
    same(e.resolve_neg(), t.resolve_neg())
    assert ember.is_conj(e) is False and e.is_neg() is False
    if dtype not in CDTYPES:
        assert ember.conj(e) is e
    same(e.t().clone().conj_physical_(), t.t().clone().conj_physical_())
    same(e.mT, t.mT)
    same(e.mH, t.mH)
    same(e.H, t.H)
    same(e.adjoint(), t.adjoint())
    raises_like(lambda: ember.ones(3).H, lambda: torch.ones(3).H)


@pytest.mark.parametrize("dtype", CDTYPES + ["float32", "float64", "int64", "bool"])
def test_angle(dtype: str) -> None:
    vals = {"bool": [True, False]}.get(dtype, [[1, -2, 0], [0, 4, -5]])
    if dtype in CDTYPES:
        vals = VALUES + [[math.nan + 1j, -0.0, -1j]]
    if dtype in ("float32", "float64"):
        vals = [1.0, -2.0, 0.0, -0.0, math.nan, -math.inf]
    e, t = pair(dtype, vals)
    same(ember.angle(e), torch.angle(t))
    same(e.angle(), t.angle())


@pytest.mark.parametrize("dtype", CDTYPES)
def test_sgn(dtype: str) -> None:
    e, t = pair(dtype, [0j, 3 + 4j, -2j, complex(math.nan, 1), complex(math.inf, 0)])
    same(ember.sgn(e), torch.sgn(t))
    same(e.sgn(), t.sgn())


@pytest.mark.parametrize("name,call", [
    ("floor", lambda x: x.floor()), ("sign", lambda x: x.sign()), ("deg2rad", lambda x: x.deg2rad()),
    ("isposinf", lambda x: x.isposinf()), ("signbit", lambda x: x.signbit()), ("relu", lambda x: x.relu()),
    ("erf", lambda x: x.erf()), ("digamma", lambda x: x.digamma()), ("clamp", lambda x: x.clamp(0, 1)),
    ("fmod", lambda x: x.fmod(2)), ("celu", lambda x: x.type()),
])
def test_torch_refusals(name: str, call) -> None:
    e, t = pair("complex64")
    try:
        want = call(t)
    except Exception:
        raises_like(lambda: call(e), lambda: call(t))
    else:
        assert call(e) == want


def test_is_complex() -> None:
    e, t = pair("complex64")
    assert ember.is_complex(e) and e.is_complex() and not e.is_floating_point()
    assert not ember.is_complex(ember.ones(2))


# ---- gradients (PyTorch's convention: the conjugate Wirtinger derivative) --------------------

def grads(lib, fn, *inputs):
    xs = [lib.tensor(v, dtype=getattr(lib, dt)).requires_grad_() for v, dt in inputs]
    out = fn(lib, *xs)
    w = lib.arange(out.numel(), dtype=lib.float64).reshape(tuple(out.shape)).to(out.dtype) * 0.5 - 1
    (out * w).sum().backward()
    return [x.grad for x in xs]


@pytest.mark.parametrize("name,fn,inputs", [
    ("view_as_real", lambda lib, x: lib.view_as_real(x)[..., 1], [(VALUES, "complex128")]),
    ("real", lambda lib, x: lib.real(x), [(VALUES, "complex128")]),
    ("imag", lambda lib, x: x.imag, [(VALUES, "complex128")]),
    ("view_as_complex", lambda lib, x: lib.view_as_real(lib.view_as_complex(x).t()).sum(-1),
     [([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[0.5, 1.0], [2.0, 0.0], [1.0, 1.0]]], "float64")]),
    ("complex", lambda lib, a, b: lib.view_as_real(lib.complex(a, b))[..., 0] + lib.imag(lib.complex(a, b)),
     [([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float64"), ([[0.5, 1.0, 2.0], [3.0, 0.0, 1.0]], "float64")]),
    ("conj_physical", lambda lib, x: lib.imag(lib.conj_physical(x)), [(VALUES, "complex128")]),
])
def test_gradients_match_torch(name: str, fn, inputs) -> None:
    ge, gt = grads(ember, fn, *inputs), grads(torch, fn, *inputs)
    for a, b in zip(ge, gt, strict=True):
        same(a, b)


CV = [[1 + 2j, -0.5 + 0.25j, 2 - 1j], [0.75j, -1.5, 0.5 - 0.5j]]
CW = [[0.5 - 1j, 2 + 0.1j, -1j], [1 + 1j, 3 - 0.5j, -2 + 0.3j]]
RV = [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]]


def _loss(lib, out):
    """A real loss of a complex output touching both parts (its gradient is then complex)."""
    if out.is_complex():
        return lib.view_as_real(out * lib.tensor(CW, dtype=out.dtype)).sum()
    return (out * lib.tensor(RV, dtype=out.dtype)).sum()


@pytest.mark.parametrize("name,fn,inputs", [
    ("mul", lambda lib, a, b: a * b, [(CV, "complex128"), (CW, "complex128")]),
    ("mul-real", lambda lib, a, b: a * b, [(CV, "complex128"), (RV, "float64")]),
    ("div", lambda lib, a, b: a / b, [(CV, "complex128"), (CW, "complex128")]),
    ("add-alpha", lambda lib, a, b: lib.add(a, b, alpha=2 - 1j), [(CV, "complex128"), (CW, "complex128")]),
    ("sub", lambda lib, a, b: a - b, [(CV, "complex128"), (RV, "float64")]),
    ("exp", lambda lib, a: a.exp(), [(CV, "complex128")]), ("log", lambda lib, a: a.log(), [(CV, "complex128")]),
    ("sqrt", lambda lib, a: a.sqrt(), [(CV, "complex128")]), ("sin", lambda lib, a: a.sin(), [(CV, "complex128")]),
    ("cos", lambda lib, a: a.cos(), [(CV, "complex128")]), ("tanh", lambda lib, a: a.tanh(), [(CV, "complex128")]),
    ("sigmoid", lambda lib, a: a.sigmoid(), [(CV, "complex128")]),
    ("reciprocal", lambda lib, a: a.reciprocal(), [(CV, "complex128")]),
    ("neg", lambda lib, a: -a, [(CV, "complex128")]), ("square", lambda lib, a: a.square(), [(CV, "complex128")]),
    ("abs", lambda lib, a: a.abs(), [(CV, "complex128")]), ("angle", lambda lib, a: a.angle(), [(CV, "complex128")]),
    ("angle-real", lambda lib, a: a.angle(), [(RV, "float64")]),
    ("mm", lambda lib, a, b: a @ b, [(CV, "complex128"), ([[1j, 2, -1], [0.5, 1 - 1j, 2j], [3, -1j, 1]], "complex128")]),
])
def test_pointwise_gradients_match_torch(name: str, fn, inputs) -> None:
    def run(lib):
        xs = [lib.tensor(v, dtype=getattr(lib, dt)).requires_grad_() for v, dt in inputs]
        _loss(lib, fn(lib, *xs)).backward()
        return [x.grad for x in xs]
    for a, b in zip(run(ember), run(torch), strict=True):
        same(a, b)


def test_complex_leaf_requires_grad() -> None:
    x = ember.zeros(2, dtype=ember.complex64, requires_grad=True)
    assert x.requires_grad
    raises_like(lambda: ember.zeros(2, dtype=ember.int64).requires_grad_(),
                lambda: torch.zeros(2, dtype=torch.int64).requires_grad_())
