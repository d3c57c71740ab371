"""DLPack: zero-copy exchange with NumPy and PyTorch, capsule protocol and lifetimes.

Memory sharing is checked by writing through one side and reading the other.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import ember
import pytest
from ember.utils.dlpack import DLDeviceType, from_dlpack, to_dlpack

np = pytest.importorskip("numpy")

NP_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
ALL_DTYPES = NP_DTYPES + ["bfloat16"]


@pytest.fixture
def torch() -> Any:
    return pytest.importorskip("torch")


def sample(lib: Any, dtype: str, shape: tuple[int, ...] = (3, 4)) -> Any:
    n = 1
    for s in shape:
        n *= s
    return (lib.arange(n) % 7).to(getattr(lib, dtype)).reshape(shape)


def views(t: Any) -> list[Any]:
    """A contiguous tensor and strided/offset views of it."""
    return [t, t[1:], t[:, 1::2], t.t(), t[2, 1:3], t[0, 0], t[:0]]


def one(dtype: str) -> Any:
    return True if dtype == "bool" else 5


# ---------------------------------------------------------------- NumPy


@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_numpy_consumes_ember(dtype: str) -> None:
    for t in views(sample(ember, dtype)):
        a = np.from_dlpack(t)
        assert a.shape == tuple(t.shape)
        assert a.strides == tuple(s * t.element_size() for s in t.stride())
        assert a.tolist() == t.tolist()
        if t.numel():
            first = (0,) * a.ndim
            a[first] = one(dtype)  # write through numpy, read through ember
            assert t[first].item() == one(dtype)


@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_ember_consumes_numpy(dtype: str) -> None:
    base = (np.arange(12) % 7).astype(dtype).reshape(3, 4)
    for a in (base, base[1:], base[:, 1::2], base.T, base[2, 1:3], base[0, 0, ...], base[:0]):
        t = ember.from_dlpack(a)
        assert tuple(t.shape) == a.shape
        assert tuple(s * t.element_size() for s in t.stride()) == a.strides
        assert t.tolist() == a.tolist()
        if a.size:
            first = (0,) * a.ndim
            t[first] = one(dtype)  # write through ember, read through numpy
            assert a[first] == one(dtype)
    t = ember.from_dlpack(base[:, 1::2])
    t[0, 0] = one(dtype)  # strided write lands in the array
    assert base[0, 1] == one(dtype)


def test_numpy_scalar_and_empty() -> None:
    assert ember.from_dlpack(np.zeros((0, 3), np.float16)).shape == (0, 3)
    z = np.array(2.5)
    t = ember.from_dlpack(z)
    assert t.dim() == 0 and t.item() == 2.5


# ---------------------------------------------------------------- PyTorch


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_torch_consumes_ember(torch: Any, dtype: str) -> None:
    for t in views(sample(ember, dtype)):
        x = torch.from_dlpack(t)
        assert str(x.dtype) == str(t.dtype)
        assert tuple(x.shape) == tuple(t.shape) and x.stride() == t.stride()
        assert x.tolist() == t.tolist()
        if t.numel():
            first = (0,) * t.dim()
            x[first] = one(dtype)
            assert t[first].item() == one(dtype)
    t = sample(ember, dtype)
    x = torch.from_dlpack(t[:, 1::2])
    x[1, 1] = one(dtype)
    assert t[1, 3].item() == one(dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_ember_consumes_torch(torch: Any, dtype: str) -> None:
    base = sample(torch, dtype)
    for x in views(base):
        t = ember.from_dlpack(x)
        assert str(t.dtype) == str(x.dtype)
        assert tuple(t.shape) == tuple(x.shape) and t.stride() == x.stride()
        assert t.tolist() == x.tolist()
    t = ember.from_dlpack(base[:, 1::2])
    t[2, 0] = one(dtype)
    assert base[2, 1].item() == one(dtype)


def test_torch_capsules_both_ways(torch: Any) -> None:
    x = torch.arange(4.0)
    cap = torch.utils.dlpack.to_dlpack(x)
    t = from_dlpack(cap)
    t[0] = -1.0
    assert x[0].item() == -1.0
    assert "used_dltensor" in repr(cap)
    e = ember.arange(3)
    y = torch.utils.dlpack.from_dlpack(to_dlpack(e))
    y[2] = 9
    assert e.tolist() == [0, 1, 9]


# ---------------------------------------------------------------- capsule protocol


def test_capsule_flavours_and_renaming() -> None:
    t = ember.arange(6.0)
    legacy = t.__dlpack__()
    assert 'capsule object "dltensor"' in repr(legacy)
    for max_version in (None, (0, 8)):
        assert '"dltensor"' in repr(t.__dlpack__(max_version=max_version))
    versioned = t.__dlpack__(max_version=(1, 0))
    assert '"dltensor_versioned"' in repr(versioned)
    assert '"dltensor_versioned"' in repr(t.__dlpack__(max_version=(2, 3)))
    for cap, used in ((legacy, '"used_dltensor"'), (versioned, '"used_dltensor_versioned"')):
        u = ember.from_dlpack(cap)
        assert used in repr(cap)
        u[1] = 10.0
        assert t[1].item() == 10.0
        with pytest.raises(RuntimeError, match="consumed only once"):
            ember.from_dlpack(cap)
    assert '"dltensor"' in repr(to_dlpack(t))


def test_round_trip_keeps_the_storage() -> None:
    t = ember.arange(10.0)[2:8:2]
    u = ember.from_dlpack(t)
    assert u is not t and not u.requires_grad
    assert ember._lib._C._storage_info(u)[0] == ember._lib._C._storage_info(t)[0]
    assert u.stride() == t.stride() and u.storage_offset() == t.storage_offset()
    u[0] = 50.0
    assert t[0].item() == 50.0


def test_dlpack_device_and_argument_checks() -> None:
    t = ember.ones(2)
    assert t.__dlpack_device__() == (DLDeviceType.kDLCPU, 0)
    assert t.__dlpack_device__()[0] is DLDeviceType.kDLCPU
    with pytest.raises(BufferError, match="require gradient"):
        ember.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError, match="require gradient"):
        ember.from_dlpack(ember.ones(2, requires_grad=True))
    with pytest.raises(TypeError, match="stream must be"):
        t.__dlpack__(stream="default")
    with pytest.raises(AssertionError, match="stream should be None on cpu"):
        t.__dlpack__(stream=5)
    t.__dlpack__(stream=-1)
    with pytest.raises(BufferError, match="dl_device"):
        t.__dlpack__(dl_device=(DLDeviceType.kDLMetal, 0))
    with pytest.raises(RuntimeError, match="invalid capsule"):
        ember.from_dlpack(1)
    with pytest.raises(TypeError, match="must be Tensor"):
        to_dlpack([1, 2])
    with pytest.raises(AssertionError, match="device and copy kwargs"):
        ember.from_dlpack(to_dlpack(t), copy=True)
    if not ember.cuda.is_available():
        with pytest.raises(RuntimeError):
            t.__dlpack__(dl_device=(DLDeviceType.kDLCUDA, 0))


def test_copy_requests() -> None:
    t = ember.arange(4.0)
    same = ember.from_dlpack(t, copy=False, device="cpu")
    same[0] = 7.0
    assert t[0].item() == 7.0
    fresh = ember.from_dlpack(t, copy=True)
    fresh[1] = 8.0
    assert t[1].item() == 1.0 and fresh.tolist() == [7.0, 8.0, 2.0, 3.0]
    a = np.arange(3.0)
    c = ember.from_dlpack(a, copy=True)
    c[0] = 5.0
    assert a[0] == 0.0
    n = np.from_dlpack(t, copy=True)
    n[2] = 9.0
    assert t[2].item() == 2.0


def test_unsupported_imports_are_clear_errors() -> None:
    assert ember.from_dlpack(np.zeros(2, np.uint16)).dtype == ember.uint16  # so are the wide unsigned dtypes
    assert ember.from_dlpack(np.zeros(2, np.complex64)).dtype == ember.complex64  # complex is supported
    with pytest.raises(RuntimeError, match="negative strides"):
        ember.from_dlpack(np.arange(4.0)[::-1])


# ---------------------------------------------------------------- lifetimes


def test_producer_memory_lives_until_the_consumer_releases_it() -> None:
    a = np.arange(1000.0)
    alive = weakref.ref(a)
    t = ember.from_dlpack(a)
    del a
    gc.collect()
    assert alive() is not None  # the ember tensor keeps the array
    assert t[999].item() == 999.0
    del t
    gc.collect()
    assert alive() is None  # ...and lets it go when freed


def test_ember_export_keeps_its_storage() -> None:
    a = np.arange(50.0)
    alive = weakref.ref(a)
    t = ember.from_numpy(a)  # storage owned by the array
    del a
    n = np.from_dlpack(t)
    del t
    gc.collect()
    assert alive() is not None and n[49] == 49.0  # the numpy view keeps it alive through ember
    del n
    gc.collect()
    assert alive() is None
    b = np.arange(5.0)
    alive_b = weakref.ref(b)
    cap = ember.from_numpy(b).__dlpack__()
    del b
    gc.collect()
    assert alive_b() is not None  # an unconsumed capsule still owns the tensor
    del cap
    gc.collect()
    assert alive_b() is None


def test_torch_consumer_keeps_ember_memory(torch: Any) -> None:
    t = ember.arange(100000.0)
    x = torch.from_dlpack(t)
    del t
    gc.collect()
    ember.ones(100000)  # reuse freed memory if it had been freed
    assert x[99999].item() == 99999.0
