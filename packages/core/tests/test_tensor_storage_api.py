"""Storages (Tensor.untyped_storage / storage / storage_type / set_(storage), UntypedStorage,
TypedStorage and the legacy FloatStorage ...) and the last Tensor names of PyTorch's API
(__array_wrap__, grad_dtype, name, slice_inverse, to_padded_tensor, the sub-byte dtypes):
values, reprs, errors and memory sharing against PyTorch 2.13."""

from __future__ import annotations

import pickle
import warnings

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def outcome(fn):
    """What a call does: ("ok", value) or (exception type name, message)."""
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001  (the type is part of the comparison)
        return type(e).__name__, str(e)


def same(fn, value=lambda v: v):
    """fn(ember) and fn(torch) do the same: equal values (through `value`) or the same error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e, t = outcome(lambda: fn(ember)), outcome(lambda: fn(torch))
    assert e[0] == t[0], (e, t)
    assert (value(e[1]) if e[0] == "ok" else e[1]) == (value(t[1]) if t[0] == "ok" else t[1]), (e, t)


def f32(lib):
    return lib.arange(6, dtype=lib.float32).reshape(2, 3)


# ---------------------------------------------------------------- UntypedStorage
@pytest.mark.parametrize("expr", [
    lambda u: u.nbytes(), lambda u: u.size(), lambda u: len(u), lambda u: u.element_size(), lambda u: u.tolist(),
    lambda u: u[0], lambda u: u[7], lambda u: u[-1], lambda u: u[100], lambda u: u[-25], lambda u: u["a"],
    lambda u: u[1:3].tolist(), lambda u: u[20:].tolist(), lambda u: u[::2], lambda u: str(u.device),
    lambda u: u.is_shared(), lambda u: u.resizable(), lambda u: u.is_pinned(), lambda u: u.type(),
    lambda u: u.untyped() is u, lambda u: u.cpu() is u, lambda u: repr(u), lambda u: str(u[4:8]),
    lambda u: u.float().tolist(), lambda u: u.long().tolist(), lambda u: u.bool().tolist(), lambda u: list(u),
    lambda u: u.clone().tolist(), lambda u: u.copy_(u.clone()).tolist(), lambda u: u.new().nbytes(),
    lambda u: u == u, lambda u: u[1:3].data_ptr() - u.data_ptr(),
])
def test_untyped_storage_matches(expr):
    same(lambda lib: expr(f32(lib).untyped_storage()))


def test_untyped_storage_shares_memory_and_identity():
    for lib in (ember, torch):
        t = f32(lib)
        u = t.untyped_storage()
        assert u.data_ptr() == t.data_ptr() == t[1].untyped_storage().data_ptr()
        assert t[1].untyped_storage() == u and lib.tensor([1]).untyped_storage() != u
        assert lib.is_storage(u) and isinstance(u, lib.UntypedStorage) and isinstance(u, lib.StorageBase)
        u[4] = 300  # bytes wrap, as uint8
        u[0:4] = 0
        assert t.view(-1).view(lib.uint8)[:8].tolist() == [0, 0, 0, 0, 44, 0, 128, 63]
        u.fill_(0)
        assert t.sum().item() == 0
        c = u.clone()
        c[0] = 1
        assert u[0] == 0
        s = u[4:8]  # a slice aliases the bytes
        s[3] = 63
        assert u[7] == 63


@pytest.mark.parametrize("call", [
    lambda lib: lib.UntypedStorage(4).nbytes(), lambda lib: lib.UntypedStorage([1, 2, 300]).tolist(),
    lambda lib: lib.UntypedStorage().nbytes(), lambda lib: lib.UntypedStorage(3, device="cpu").nbytes(),
    lambda lib: str(lib.UntypedStorage(2).device), lambda lib: lib.UntypedStorage(3).copy_(lib.UntypedStorage(2)),
    lambda lib: lib.StorageBase(2),
])
def test_untyped_storage_construction(call):
    same(call)


def test_untyped_storage_resize_keeps_bytes_and_tensors_see_it():
    for lib in (ember, torch):
        x = lib.ones(2)
        u = x.untyped_storage()
        u.resize_(16)
        assert u.nbytes() == 16 and x.untyped_storage().nbytes() == 16 and x.tolist() == [1.0, 1.0]
        u.resize_(8)
        assert x.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="not resizable"):
        ember.from_numpy(np.ones(2)).untyped_storage().resize_(64)


def test_storage_pickle_and_deepcopy():
    import copy

    u = f32(ember).untyped_storage()
    assert pickle.loads(pickle.dumps(u)).tolist() == u.tolist()
    d = copy.deepcopy(u)
    assert d.tolist() == u.tolist() and d.data_ptr() != u.data_ptr()


# ---------------------------------------------------------------- TypedStorage
def test_storage_warns_like_torch():
    for lib in (ember, torch):
        mod = lib.storage
        mod._reset_warn_typed_storage_removal()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            f32(lib).storage()
            f32(lib).storage()
        assert [str(x.message) for x in w] == [str(w[0].message)] and w[0].category is UserWarning
        assert "TypedStorage is deprecated" in str(w[0].message)
        assert w[0].filename == __file__


@pytest.mark.parametrize("expr", [
    lambda s: str(s.dtype), lambda s: s.size(), lambda s: len(s), lambda s: s.nbytes(), lambda s: s.element_size(),
    lambda s: s[1], lambda s: s[-1], lambda s: s[10], lambda s: s[1:3], lambda s: s.tolist(), lambda s: s.type(),
    lambda s: repr(s), lambda s: s.pickle_storage_type(), lambda s: type(s.untyped()).__name__,
    lambda s: s.untyped().nbytes(), lambda s: s.double().tolist(), lambda s: s.float() is s, lambda s: list(s),
    lambda s: s.fill_(2).tolist(), lambda s: s.copy_(s.clone().fill_(3)).tolist(), lambda s: str(s.device),
    lambda s: s.is_shared(), lambda s: s.cpu() is s, lambda s: s.get_device(),
])
def test_typed_storage_matches(expr):
    same(lambda lib: expr(f32(lib).storage()))


DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8", "int8", "int16", "int32", "int64", "bool",
          "complex64", "complex128"]


@pytest.mark.parametrize("name", DTYPES)
def test_storage_type_and_legacy_classes(name):
    same(lambda lib: lib.zeros(2, dtype=getattr(lib, name)).storage_type().__name__)
    same(lambda lib: isinstance(lib.zeros(2, dtype=getattr(lib, name)).storage(),
                                getattr(lib, lib.zeros(2, dtype=getattr(lib, name)).storage_type().__name__)))
    same(lambda lib: lib.zeros(2, dtype=getattr(lib, name)).storage().tolist())
    same(lambda lib: isinstance(lib.zeros(2, dtype=getattr(lib, name)).storage(), lib.FloatStorage))


@pytest.mark.parametrize("call", [
    lambda lib: lib.FloatStorage(3).size(), lambda lib: type(lib.FloatStorage(3)).__name__,
    lambda lib: lib.FloatStorage([1, 2]).tolist(), lambda lib: str(lib.FloatStorage.dtype),
    lambda lib: lib.TypedStorage(3, dtype=lib.int64).size(), lambda lib: lib.TypedStorage([1, 2], dtype=lib.float64).tolist(),
    lambda lib: str(lib.TypedStorage(3).dtype), lambda lib: lib.Storage.__name__,
    lambda lib: lib.is_storage(lib.FloatStorage(2)), lambda lib: isinstance(lib.FloatStorage(2), lib.TypedStorage),
    lambda lib: isinstance(lib.FloatStorage(2), lib.Storage), lambda lib: lib.DoubleStorage([1.5]).tolist(),
    lambda lib: lib.UntypedStorage([1, 2]).float().tolist(), lambda lib: lib.is_storage(lib.zeros(1)),
])
def test_typed_storage_construction(call):
    same(call)


def test_typed_storage_writes_through():
    for lib in (ember, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = lib.arange(4.0)
            s = t.storage()
            s[0] = 9
            assert t.tolist() == [9.0, 1.0, 2.0, 3.0]
            assert s.data_ptr() == t.data_ptr()
            s.resize_(6)
            assert s.size() == 6 and t.tolist() == [9.0, 1.0, 2.0, 3.0]


# ---------------------------------------------------------------- set_ with a storage
@pytest.mark.parametrize("call", [
    lambda lib, y: lib.empty(0).set_(y.untyped_storage()).tolist(),
    lambda lib, y: lib.empty(0).set_(y.untyped_storage(), 1, (2,), (1,)).tolist(),
    lambda lib, y: lib.empty(0).set_(y.untyped_storage(), 0, [2], [1]).stride(),
    lambda lib, y: lib.empty(0).set_(y.storage(), 1, (2,)).tolist(),
    lambda lib, y: lib.empty(0, dtype=lib.float64).set_(y.storage()),
    lambda lib, y: lib.empty(3).set_().shape,
    lambda lib, y: lib.empty(3).set_(source=y.untyped_storage()).tolist(),
    lambda lib, y: lib.empty(3).set_(y.untyped_storage(), storage_offset=2, size=(1,), stride=(1,)).tolist(),
    lambda lib, y: lib.empty(0).set_(lib.UntypedStorage(7)).shape,
    lambda lib, y: lib.tensor(3.0).set_(y.untyped_storage(), 1, ()).tolist(),
    lambda lib, y: lib.empty(0).set_(y, 1, (2,), (1,)).tolist(),
    lambda lib, y: lib.empty(0, dtype=lib.int64).set_(lib.UntypedStorage(3)).shape,
])
def test_set_from_storage(call):
    same(lambda lib: call(lib, lib.tensor([1.0, 2.0, 3.0])))


def test_set_shares_memory_and_grows_storage():
    for lib in (ember, torch):
        y = lib.tensor([1.0, 2.0, 3.0])
        e = lib.empty(0).set_(y.untyped_storage(), 1, (2,), (1,))
        e[0] = 7
        assert y.tolist() == [1.0, 7.0, 3.0]
        g = lib.empty(0).set_(y.untyped_storage(), 0, (5,), (1,))  # grows the storage, as PyTorch
        assert y.untyped_storage().nbytes() == 20 and g.shape == (5,) and g[:3].tolist() == [1.0, 7.0, 3.0]


# ---------------------------------------------------------------- sub-byte dtypes
SUB_BYTE = [f"uint{i}" for i in range(1, 8)] + [f"int{i}" for i in range(1, 8)]


@pytest.mark.parametrize("name", SUB_BYTE + ["bit"])
def test_sub_byte_dtype_objects(name):
    same(lambda lib: (repr(getattr(lib, name)), str(getattr(lib, name)), getattr(lib, name).itemsize,
                      getattr(lib, name).is_floating_point, getattr(lib, name).is_signed, getattr(lib, name).is_complex))
    same(lambda lib: str(getattr(lib, name).to_real()))
    same(lambda lib: getattr(lib, name).to_complex())
    same(lambda lib: pickle.loads(pickle.dumps(getattr(lib, name))) is getattr(lib, name))
    same(lambda lib: isinstance(getattr(lib, name), lib.dtype))
    same(lambda lib: lib.finfo(getattr(lib, name)))
    same(lambda lib: lib.set_default_dtype(getattr(lib, name)))
    # PyTorch makes tensors of them but no op computes on them; ember refuses at once, with its type
    with pytest.raises(NotImplementedError, match="sub-byte"):
        ember.ones(3, dtype=getattr(ember, name))
    with pytest.raises(NotImplementedError):
        torch.ones(3, dtype=getattr(torch, name))


def test_bit_is_uint1():
    assert ember.bit is ember.uint1 and torch.bit is torch.uint1
    with pytest.raises(NotImplementedError):
        ember.zeros(2).to(ember.uint4)
    with pytest.raises(NotImplementedError):
        torch.zeros(2).to(torch.uint4)


# ---------------------------------------------------------------- __array_wrap__
@pytest.mark.parametrize("ufunc", [
    lambda lib: np.sin(f32(lib)), lambda lib: np.add(f32(lib), 1), lambda lib: np.greater(f32(lib), 2),
    lambda lib: np.exp(lib.tensor([1, 2])), lambda lib: np.negative(lib.tensor([True, False])),
    lambda lib: f32(lib).__array_wrap__(np.ones(2)), lambda lib: f32(lib).__array_wrap__(np.float64(3.0)),
    lambda lib: np.multiply(lib.ones(2, requires_grad=True), 2),
])
def test_array_wrap(ufunc):
    def value(v):
        return type(v).__name__, str(v.dtype), v.tolist()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # NumPy 2: __array_wrap__(self, array) is the old form
        same(ufunc, value)


# ---------------------------------------------------------------- grad_dtype
def test_grad_dtype():
    for lib in (ember, torch):
        t = lib.ones(3)
        assert t.grad_dtype == lib.float32 and lib.tensor([1]).grad_dtype == lib.int64
        w = lib.ones(3, requires_grad=True)
        w.grad_dtype = lib.float64
        (w * 2).sum().backward()
        (w * 3).sum().backward()
        assert w.grad.dtype == lib.float64 and w.grad.tolist() == [5.0, 5.0, 5.0] and w.grad_dtype == lib.float64
        w.grad_dtype = None
        assert w.grad_dtype is None
        w.grad = lib.ones(3, dtype=lib.float16)
        assert w.grad.dtype == lib.float16
        w2 = lib.ones(3, requires_grad=True)
        (w2 * 2).sum().backward()
        assert w2.grad.dtype == lib.float32
        assert w.detach().grad_dtype == lib.float32


@pytest.mark.parametrize("call", [
    lambda lib: setattr(lib.ones(3, requires_grad=True) * 2, "grad_dtype", lib.float64),
    lambda lib: (lib.ones(3, requires_grad=True) * 2).grad_dtype,
    lambda lib: setattr(lib.ones(3, requires_grad=True), "grad_dtype", 3),
    lambda lib: setattr(lib.ones(3, requires_grad=True), "grad_dtype", "float"),
    lambda lib: setattr(lib.ones(3), "grad", lib.ones(3, dtype=lib.float64)),
    lambda lib: _assign_grad(lib, lib.float16, lib.ones(3)),
    lambda lib: _assign_grad(lib, lib.float16, lib.ones(3, dtype=lib.float16)).dtype,
    lambda lib: str(_int_leaf(lib).grad_dtype),
])
def test_grad_dtype_errors(call):
    same(call, lambda v: str(v) if v is not None else v)


def _assign_grad(lib, grad_dtype, g):
    w = lib.ones(3, requires_grad=True)
    w.grad_dtype = grad_dtype
    w.grad = g
    return w.grad


def _int_leaf(lib):
    i = lib.ones(3, dtype=lib.int64)
    i.grad_dtype = lib.float32
    return i


# ---------------------------------------------------------------- name, slice_inverse, to_padded_tensor
def test_name_is_none_and_read_only():
    same(lambda lib: lib.ones(2).name)
    same(lambda lib: setattr(lib.ones(2), "name", "x"))


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.slice_inverse(x[1:], x, 0, 1, None, 1).tolist(),
    lambda lib, x: x[:, ::2].slice_inverse(x, 1, 0, None, 2).stride(),
    lambda lib, x: x[:, ::2].slice_inverse(x, 1).tolist(),
    lambda lib, x: lib.slice_inverse(x[1:], x, dim=0, start=1).tolist(),
    lambda lib, x: x.slice_inverse(x).shape,
    lambda lib, x: lib.slice_inverse(x[1:].clone(), x, 0, 1, None, 1),
])
def test_slice_inverse(call):
    same(lambda lib: call(lib, lib.arange(12.0).reshape(3, 4)))


def test_slice_inverse_is_a_view():
    for lib in (ember, torch):
        x = lib.arange(12.0).reshape(3, 4)
        v = lib.slice_inverse(x[1:], x, 0, 1, None, 1)
        assert v.data_ptr() == x.data_ptr() and v._base is not None
        v[0, 0] = 100
        assert x[0, 0].item() == 100


def test_to_padded_tensor_needs_a_nested_tensor():
    for lib in (ember, torch):
        with pytest.raises(NotImplementedError, match="Could not run 'aten::to_padded_tensor' with arguments from "
                                                      "the 'CPU' backend"):
            lib.ones(2, 3).to_padded_tensor(0.0)
