"""Storages, as ``torch.storage``: the bytes under a tensor, seen untyped or typed.

``Tensor.untyped_storage()`` is an :class:`UntypedStorage` sharing the tensor's memory (writes
through it show in every tensor on that storage); ``Tensor.storage()`` is the deprecated
:class:`TypedStorage` view of it, and ``FloatStorage`` ... are the legacy classes that name a
dtype. A storage object holds a flat tensor over its storage; the compiled core does the rest
(``_C._storage_as`` / ``_storage_slice`` / ``_storage_resize_``).
"""

from __future__ import annotations

import warnings
from typing import Any

import ember
from ember._lib import _C

__all__ = ["TypedStorage", "UntypedStorage"]

_TYPED_STORAGE_DEPRECATED = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage "
    "class. This should only matter to you if you are using storages directly.  To access UntypedStorage "
    "directly, use tensor.untyped_storage() instead of tensor.storage()"
)
_warned = False


def _warn_typed_storage_removal(stacklevel: int = 2) -> None:
    """PyTorch's deprecation warning for TypedStorage, given once per process."""
    global _warned
    if not _warned:
        warnings.warn(_TYPED_STORAGE_DEPRECATED, UserWarning, stacklevel=stacklevel + 1)
        _warned = True


def _reset_warn_typed_storage_removal() -> None:
    global _warned
    _warned = False


def _check_cpu(device: Any) -> None:
    if device is not None and _C.device(device).type != "cpu":
        raise _C.CudaNotCompiledError("Torch not compiled with CUDA enabled")


def _wrap_index(idx: Any, size: int, kind: str) -> int:
    if isinstance(idx, bool) or not isinstance(idx, int):
        if hasattr(idx, "__index__") and not isinstance(idx, bool):
            idx = idx.__index__()
        else:
            raise TypeError(f"can't index a {kind} with {type(idx).__name__}")
    if idx < 0:
        idx += size
    if not 0 <= idx < size:  # the message names the index after wrapping, as PyTorch's
        raise IndexError(f"index {idx} out of range for storage of size {size}")
    return idx


class _StorageBase:
    """What untyped storages share (``torch.StorageBase``); not constructed directly."""

    _t: Any  # a uint8 tensor on the storage (any tensor sharing it would do)
    is_sparse = False
    is_sparse_csr = False
    is_cuda = False
    is_hpu = False

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is _StorageBase:
            raise RuntimeError("Cannot directly construct StorageBase; subclass it and then construct that")
        return super().__new__(cls)


class UntypedStorage(_StorageBase):
    """The bytes of a storage: ``UntypedStorage(n)`` (uninitialised), ``UntypedStorage([bytes...])``
    or ``tensor.untyped_storage()`` (shared with the tensor)."""

    def __init__(self, *args: Any, device: Any = None) -> None:
        _check_cpu(device)
        if len(args) > 1:
            raise TypeError(f"UntypedStorage() takes at most 1 positional argument ({len(args)} given)")
        arg = args[0] if args else 0
        if isinstance(arg, int) and not isinstance(arg, bool):
            if arg < 0:
                raise RuntimeError(f"Storage size must be non-negative, got {arg}")
            self._t = _C.empty(arg, dtype=_C.uint8)
        elif isinstance(arg, (list, tuple)):
            self._t = ember.tensor([int(v) & 0xFF for v in arg], dtype=_C.uint8)
        else:
            raise TypeError(f"UntypedStorage(): got an invalid argument of type {type(arg).__name__}")

    @classmethod
    def _wrap(cls, t: Any) -> UntypedStorage:
        """The storage under tensor t (no copy)."""
        s = object.__new__(cls)
        s._t = t
        return s

    def _bytes(self) -> Any:
        return _C._storage_as(self._t, _C.uint8)

    # ---- facts ----
    @property
    def device(self) -> Any:
        return self._t.device

    @property
    def _cdata(self) -> int:
        return _C._storage_info(self._t)[0]

    def nbytes(self) -> int:
        return _C._storage_info(self._t)[2]

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return _C._storage_info(self._t)[1]

    def get_device(self) -> Any:
        return self.device.index

    def is_shared(self) -> bool:
        return _C._storage_info(self._t)[3]

    def is_pinned(self, device: Any = "cuda") -> bool:
        return False

    def resizable(self) -> bool:
        return _C._storage_resizable(self._t)

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        if dtype is None:
            return "torch.storage.UntypedStorage"
        raise TypeError("UntypedStorage.type(dtype) is not supported; use a TypedStorage")

    def untyped(self) -> UntypedStorage:
        return self

    # Storages of the same memory compare equal (PyTorch hands back the one Python object).
    def __eq__(self, other: object) -> bool:
        return isinstance(other, UntypedStorage) and other._cdata == self._cdata

    def __hash__(self) -> int:
        return hash(self._cdata)

    # ---- elements ----
    def __getitem__(self, idx: Any) -> Any:
        n = self.nbytes()
        if isinstance(idx, slice):
            start, stop, step = idx.indices(n)
            if step != 1:
                raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 is supported")
            return UntypedStorage._wrap(_C._storage_slice(self._t, start, max(start, stop)))
        return int(self._bytes()[_wrap_index(idx, n, "torch.UntypedStorage")].item())

    def __setitem__(self, idx: Any, value: Any) -> None:
        flat = self._bytes()
        if isinstance(idx, slice):
            start, stop, step = idx.indices(flat.numel())
            if step != 1:
                raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 is supported")
            flat[start:stop] = int(value) & 0xFF
            return
        flat[_wrap_index(idx, flat.numel(), "torch.UntypedStorage")] = int(value) & 0xFF

    def __iter__(self) -> Any:
        return iter(self.tolist())

    def tolist(self) -> list[int]:
        return self._bytes().tolist()

    def fill_(self, value: Any) -> UntypedStorage:
        self._bytes().fill_(int(value) & 0xFF)
        return self

    def copy_(self, source: Any, non_blocking: Any = None) -> UntypedStorage:
        src = source.untyped() if isinstance(source, TypedStorage) else source
        if not isinstance(src, UntypedStorage):
            raise TypeError(f"copy_(): expected a storage, got {type(source).__name__}")
        if src.nbytes() != self.nbytes():
            raise RuntimeError(f"size does not match, self was {self.nbytes()} bytes but src was {src.nbytes()} bytes")
        self._bytes().copy_(src._bytes())
        return self

    def clone(self) -> UntypedStorage:
        return UntypedStorage._wrap(self._bytes().clone())

    def new(self) -> UntypedStorage:
        return UntypedStorage(0)

    def resize_(self, size: int) -> None:
        _C._storage_resize_(self._t, size)

    def share_memory_(self) -> UntypedStorage:
        from ember.multiprocessing._shared_memory import share_memory_

        share_memory_(self._t)
        return self

    # ---- devices ----
    def cpu(self) -> UntypedStorage:
        return self

    def to(self, *, device: Any = None, non_blocking: bool = False) -> UntypedStorage:
        _check_cpu(device)
        return self

    def cuda(self, device: Any = None, non_blocking: bool = False) -> Any:
        raise _C.CudaNotCompiledError("Torch not compiled with CUDA enabled")

    def pin_memory(self, device: Any = "cuda") -> Any:
        raise RuntimeError("Cannot access accelerator device when none is available.")

    # ---- typed copies: each byte converted (u.float() holds float(byte) per byte) ----
    def _to_dtype(self, dtype: Any) -> TypedStorage:
        return TypedStorage._wrap(self._bytes().to(dtype), dtype)

    def __repr__(self) -> str:
        info = f"[torch.storage.UntypedStorage(device={self.device}) of size {len(self)}]"
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + info

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> UntypedStorage:
        r = self.clone()
        memo[id(self)] = r
        return r

    def __reduce__(self) -> Any:
        return (UntypedStorage, (self.tolist(),))


class TypedStorage:
    """A storage seen as elements of one dtype (deprecated in PyTorch: ``tensor.storage()``)."""

    is_sparse = False
    dtype: Any

    def __init__(self, *args: Any, dtype: Any = None, device: Any = None, wrap_storage: Any = None,
                 _internal: bool = False) -> None:
        if not _internal:
            _warn_typed_storage_removal()
        _check_cpu(device)
        self.dtype = _C.get_default_dtype() if dtype is None else dtype
        if wrap_storage is not None:
            if args:
                raise RuntimeError("TypedStorage(): No positional arguments should be given when using `wrap_storage`")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(f"expected a torch.UntypedStorage for `wrap_storage`, got {type(wrap_storage)}")
            self._untyped_storage = wrap_storage
            return
        if len(args) > 1:
            raise RuntimeError(f"TypedStorage(): Too many positional arguments ({len(args)})")
        arg = args[0] if args else 0
        if isinstance(arg, int) and not isinstance(arg, bool):
            if arg < 0:
                raise RuntimeError(f"Storage size must be non-negative, got {arg}")
            t = _C.empty(arg, dtype=self.dtype)
        elif isinstance(arg, (list, tuple)):
            t = ember.tensor(list(arg), dtype=self.dtype)
        else:
            raise TypeError(f"TypedStorage(): got an invalid argument of type {type(arg).__name__}")
        self._untyped_storage = UntypedStorage._wrap(t)

    @classmethod
    def _wrap(cls, t: Any, dtype: Any) -> TypedStorage:
        return TypedStorage(wrap_storage=UntypedStorage._wrap(t), dtype=dtype, _internal=True)

    def _flat(self) -> Any:
        return _C._storage_as(self._untyped_storage._t, self.dtype)

    # ---- facts ----
    @property
    def device(self) -> Any:
        return self._untyped_storage.device

    @property
    def _cdata(self) -> int:
        return self._untyped_storage._cdata

    def size(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def nbytes(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        _warn_typed_storage_removal()
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.data_ptr()

    def get_device(self) -> Any:
        return self.device.index

    def is_shared(self) -> bool:
        _warn_typed_storage_removal()
        return self._untyped_storage.is_shared()

    def is_pinned(self, device: Any = "cuda") -> bool:
        return False

    def resizable(self) -> bool:
        return self._untyped_storage.resizable()

    def untyped(self) -> UntypedStorage:
        _warn_typed_storage_removal()
        return self._untyped_storage

    def pickle_storage_type(self) -> str:
        _warn_typed_storage_removal()
        return _LEGACY_NAMES[self.dtype]

    def _get_legacy_storage_class(self) -> Any:
        return globals()[_LEGACY_NAMES[self.dtype]] if self.dtype in _LEGACY_NAMES else None

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        _warn_typed_storage_removal()
        if dtype is None:
            name = _LEGACY_NAMES.get(self.dtype)
            return f"torch.{name}" if name else "torch.storage.TypedStorage"
        raise TypeError("TypedStorage.type(dtype) is not supported; use .to(dtype) on a tensor")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypedStorage) and other.dtype == self.dtype and \
            other._untyped_storage == self._untyped_storage

    def __hash__(self) -> int:
        return hash((self._cdata, self.dtype))

    # ---- elements ----
    def __getitem__(self, idx: Any) -> Any:
        _warn_typed_storage_removal()
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        flat = self._flat()
        return flat[_wrap_index(idx, flat.numel(), "torch.TypedStorage")].item()

    def __setitem__(self, idx: Any, value: Any) -> None:
        _warn_typed_storage_removal()
        flat = self._flat()
        if isinstance(idx, slice):
            flat[idx] = value
            return
        flat[_wrap_index(idx, flat.numel(), "torch.TypedStorage")] = value

    def __iter__(self) -> Any:
        _warn_typed_storage_removal()
        return iter(self._flat().tolist())

    def tolist(self) -> list:
        _warn_typed_storage_removal()
        return self._flat().tolist()

    def fill_(self, value: Any) -> TypedStorage:
        _warn_typed_storage_removal()
        self._flat().fill_(value)
        return self

    def copy_(self, source: Any, non_blocking: Any = None) -> TypedStorage:
        _warn_typed_storage_removal()
        if isinstance(source, TypedStorage):
            src = source._flat()
            if src.numel() != self._flat().numel():
                raise RuntimeError(f"size does not match, self was {self.nbytes()} bytes but src was "
                                   f"{source.nbytes()} bytes")
            self._flat().copy_(src)
        else:
            self._untyped_storage.copy_(source)
        return self

    def clone(self) -> TypedStorage:
        _warn_typed_storage_removal()
        return TypedStorage._wrap(self._flat().clone(), self.dtype)

    def resize_(self, size: int) -> None:
        _warn_typed_storage_removal()
        self._untyped_storage.resize_(size * self.dtype.itemsize)

    def share_memory_(self) -> TypedStorage:
        _warn_typed_storage_removal()
        self._untyped_storage.share_memory_()
        return self

    def cpu(self) -> TypedStorage:
        _warn_typed_storage_removal()
        return TypedStorage(wrap_storage=self._untyped_storage, dtype=self.dtype, _internal=True)

    def to(self, *, device: Any = None, non_blocking: bool = False) -> TypedStorage:
        _warn_typed_storage_removal()
        _check_cpu(device)
        return self

    def cuda(self, device: Any = None, non_blocking: bool = False) -> Any:
        raise _C.CudaNotCompiledError("Torch not compiled with CUDA enabled")

    def _to_dtype(self, dtype: Any) -> TypedStorage:
        _warn_typed_storage_removal()
        return TypedStorage._wrap(self._flat().to(dtype) if dtype != self.dtype else self._flat().clone(), dtype)

    def __repr__(self) -> str:
        _warn_typed_storage_removal()
        info = f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {len(self)}]"
        return " " + "\n ".join(str(v) for v in self._flat().tolist()) + "\n" + info

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> TypedStorage:
        r = self.clone()
        memo[id(self)] = r
        return r

    def __reduce__(self) -> Any:
        return (TypedStorage._wrap, (self._flat().clone(), self.dtype))


# u.float(), s.double(), ...: a storage of that dtype holding the elements converted.
for _name, _dt in (("bfloat16", _C.bfloat16), ("bool", _C.bool), ("byte", _C.uint8), ("char", _C.int8),
                   ("complex_double", _C.complex128), ("complex_float", _C.complex64), ("double", _C.float64),
                   ("float", _C.float32), ("half", _C.float16), ("int", _C.int32), ("long", _C.int64),
                   ("short", _C.int16)):
    for _cls in (UntypedStorage, TypedStorage):
        setattr(_cls, _name, (lambda dt: lambda self: self._to_dtype(dt))(_dt))

_LEGACY_NAMES = {
    _C.float32: "FloatStorage", _C.float64: "DoubleStorage", _C.float16: "HalfStorage",
    _C.bfloat16: "BFloat16Storage", _C.uint8: "ByteStorage", _C.int8: "CharStorage", _C.int16: "ShortStorage",
    _C.int32: "IntStorage", _C.int64: "LongStorage", _C.bool: "BoolStorage",
    _C.complex64: "ComplexFloatStorage", _C.complex128: "ComplexDoubleStorage",
}


class _LegacyStorageMeta(type):
    dtype: Any

    def __instancecheck__(cls, instance: Any) -> bool:
        return type(instance) is TypedStorage and instance.dtype == cls.dtype


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """``FloatStorage(...)`` and its kin: a TypedStorage of the class's dtype."""

    def __new__(cls, *args: Any, wrap_storage: Any = None, device: Any = None) -> Any:  # type: ignore[misc]
        return TypedStorage(*args, dtype=cls.dtype, wrap_storage=wrap_storage, device=device, _internal=True)


for _dt, _name in _LEGACY_NAMES.items():
    globals()[_name] = _LegacyStorageMeta(_name, (_LegacyStorage,), {
        "dtype": _dt, "__module__": "torch",
        "__doc__": f"PyTorch's legacy storage class of {_dt}: ``{_name}(n)`` makes a TypedStorage of that dtype."})
LEGACY_STORAGES = {n: globals()[n] for n in _LEGACY_NAMES.values()}
Storage = FloatStorage  # noqa: F821  (PyTorch's default storage type, as torch.Storage)
StorageBase = _StorageBase
