"""The pickler behind ``ember.save``: tensors become PyTorch's persistent-id form.

A tensor is written exactly as ``torch.save`` writes one::

    torch._utils._rebuild_tensor_v2(
        <persistent id ('storage', torch.FloatStorage, '0', 'cpu', numel)>,
        storage_offset, size, stride, requires_grad, OrderedDict())

Each storage is recorded once (tensors sharing it share the key) and its bytes
go to ``data/<key>`` in the archive.  ember never imports torch, so the torch
names are produced one of two ways:

* fast path (protocols 1-3): the C pickler writes importable stand-ins from
  ``_stubs``, and :func:`rewrite_stubs` renames their GLOBAL lines;
* general path (any protocol, and the fallback if a rewrite is ambiguous):
  a pure-Python pickler writes :class:`TorchGlobal` markers verbatim.
"""

from __future__ import annotations

import ctypes
import io
import pickle
import re
from collections import OrderedDict
from typing import Any

from ember._lib import _C
from ember._size import Size
from ember._tensor import Tensor
from ember.serialization import _names as N
from ember.serialization import _stubs
from ember.serialization._rebuild import loaded_parameter_class
from ember.serialization._storage import TypedStorage


class StorageEntry:
    """One storage to write: its key, persistent id and the memory holding its bytes."""

    __slots__ = ("key", "pid", "stub_pid", "dtype", "holder", "ptr", "nbytes")

    def __init__(self, key: str, t: Any) -> None:
        storage_key, ptr, nbytes, _ = _C._storage_info(t)
        itemsize = t.element_size()
        numel = nbytes // itemsize
        location = "cpu"
        if t.device.type != "cpu":
            # Device storages are written from a host copy of the whole storage.
            location = str(t.device) if t.device.index is not None else f"{t.device.type}:0"
            t = _C._as_strided_storage(t, [numel], [1], 0).cpu()
            _, ptr, _, _ = _C._storage_info(t)
        self.key = key
        self.dtype = t.dtype
        self.holder = t  # keeps the memory alive until the bytes are written
        self.ptr = ptr
        self.nbytes = numel * itemsize
        if t.dtype in N.UNTYPED_DTYPES:  # an untyped storage counts bytes
            numel = self.nbytes
        self.pid = ("storage", N.STORAGE_CLASSES[t.dtype], key, location, numel)
        self.stub_pid = ("storage", _stubs.STUBS[N.STORAGE_CLASSES[t.dtype].name], key, location, numel)

    def buffer(self) -> Any:
        """A zero-copy view of the storage bytes (valid while ``holder`` lives)."""
        if self.nbytes == 0:
            return b""
        return memoryview((ctypes.c_char * self.nbytes).from_address(self.ptr)).cast("B")


class StorageTable:
    """Storages met while pickling, in first-seen order (their keys are "0", "1", ...)."""

    def __init__(self) -> None:
        self.entries: list[StorageEntry] = []
        self._by_storage: dict[int, StorageEntry] = {}

    def entry(self, t: Any) -> StorageEntry:
        storage_key = _C._storage_info(t)[0]
        e = self._by_storage.get(storage_key)
        if e is None:
            if t.dtype not in N.STORAGE_CLASSES:
                raise pickle.PicklingError(f"ember.save: cannot save tensors of dtype {t.dtype}")
            e = StorageEntry(str(len(self.entries)), t)
            self._by_storage[storage_key] = e
            self.entries.append(e)
        elif e.dtype != t.dtype:
            raise RuntimeError(
                "Cannot save multiple tensors or storages that view the same data as different types"
            )
        return e


class _Names:
    """The objects a reduction refers to: TorchGlobal markers or their importable stand-ins."""

    def __init__(self, lookup: Any) -> None:
        for attr, g in (("rebuild_v2", N.REBUILD_TENSOR_V2), ("rebuild_v3", N.REBUILD_TENSOR_V3),
                        ("parameter", N.REBUILD_PARAMETER), ("meta", N.REBUILD_META),
                        ("parameter_state", N.REBUILD_PARAMETER_WITH_STATE),
                        ("from_type", N.REBUILD_FROM_TYPE_V2), ("tensor", N.TENSOR), ("size", N.SIZE),
                        ("device", N.DEVICE), ("layout", N.GET_LAYOUT)):
            setattr(self, attr, lookup(g))


_MARKERS = _Names(lambda g: g)
_STUB_NAMES = _Names(lambda g: _stubs.STUBS[g.name])


class _Reductions:
    """How ember objects reduce to PyTorch's spelling; shared by both picklers."""

    _names: _Names
    _table: StorageTable
    _parameter: Any

    def _reduce_tensor(self, t: Any) -> Any:
        n = self._names
        cls = type(t)
        state = getattr(t, "__dict__", None)
        if self._parameter is not None and cls is self._parameter:
            args = (t.detach(), t.requires_grad, OrderedDict())
            if state:
                return n.parameter_state, args + (dict(state),)
            return n.parameter, args
        if t.device.type == "meta":  # no storage: PyTorch's record of the sizes alone
            rebuild, args = n.meta, (t.dtype, tuple(t.shape), tuple(t.stride()), t.requires_grad)
            if cls is Tensor and not state:
                return rebuild, args
            return n.from_type, (rebuild, n.tensor if cls is Tensor else cls, args, dict(state or {}))
        entry = self._table.entry(t)
        args = (entry, t.storage_offset(), tuple(t.shape), tuple(t.stride()), t.requires_grad, OrderedDict())
        if t.is_conj():  # the stored conjugates and PyTorch's metadata, which sets the bit again on load
            args += ({"conj": True},)
        rebuild = n.rebuild_v2
        if t.dtype in N.UNTYPED_DTYPES:  # PyTorch's v3: the dtype after the hooks
            rebuild, args = n.rebuild_v3, args[:6] + (t.dtype,) + args[6:]
        if cls is Tensor and not state:
            return rebuild, args
        new_type = n.tensor if cls is Tensor else cls
        return n.from_type, (rebuild, new_type, args, dict(state or {}))

    def _pid(self, obj: Any) -> Any:
        t = type(obj)
        if t is StorageEntry:
            return obj.pid if self._names is _MARKERS else obj.stub_pid
        if t is TypedStorage:  # a bare storage that came out of ember.load
            e = self._table.entry(obj.flat())
            return e.pid if self._names is _MARKERS else e.stub_pid
        return None


class TorchPickler(_Reductions, pickle._Pickler):  # type: ignore[name-defined, misc]
    """General path: a pure-Python pickler writing torch names verbatim (any protocol)."""

    dispatch = pickle._Pickler.dispatch.copy()  # type: ignore[attr-defined]

    def __init__(self, file: Any, protocol: int, table: StorageTable) -> None:
        super().__init__(file, protocol)
        self._table = table
        self._names = _MARKERS
        self._parameter = loaded_parameter_class()

    def persistent_id(self, obj: Any) -> Any:
        return self._pid(obj)

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, _C.TensorBase):
            return self._reduce_tensor(obj)
        return NotImplemented

    def _write_global(self, module: str, name: str) -> None:
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())

    def _save_torch_global(self, g: N.TorchGlobal) -> None:
        self._write_global(g.module, g.name)
        self.memoize(g)

    def _save_dtype(self, d: Any) -> None:
        if d not in N.DTYPES:
            raise pickle.PicklingError(f"ember.save: cannot save dtype {d}")
        self._write_global("torch", N.dtype_name(d))
        self.memoize(d)

    def _save_device(self, d: Any) -> None:
        self.save_reduce(N.DEVICE, (d.type,) if d.index is None else (d.type, d.index), obj=d)

    def _save_size(self, s: Any) -> None:
        self.save_reduce(N.SIZE, (tuple(s),), obj=s)

    def _save_layout(self, layout: Any) -> None:
        self.save_reduce(N.GET_LAYOUT, (str(layout),), obj=layout)

    dispatch[N.TorchGlobal] = _save_torch_global
    dispatch[_C.dtype] = _save_dtype
    dispatch[_C.device] = _save_device
    dispatch[Size] = _save_size
    dispatch[_C.layout] = _save_layout


class _StubPickler(_Reductions, pickle.Pickler):
    """Fast path: the C pickler over importable stand-ins; records which ones it used."""

    def __init__(self, file: Any, protocol: int, table: StorageTable) -> None:
        super().__init__(file, protocol)
        self._table = table
        self._names = _STUB_NAMES
        self._parameter = loaded_parameter_class()
        self.used: set[str] = set()

    def persistent_id(self, obj: Any) -> Any:
        pid = self._pid(obj)
        if pid is not None:
            self.used.add(pid[1].__name__)
        return pid

    def reducer_override(self, obj: Any) -> Any:
        t = type(obj)
        if isinstance(obj, _C.TensorBase):
            rv = self._reduce_tensor(obj)
        elif t is _C.dtype:
            if obj not in _stubs.DTYPE_STUBS:
                raise pickle.PicklingError(f"ember.save: cannot save dtype {obj}")
            rv = (_stubs.STUBS[_stubs.DTYPE_STUBS[obj]], ())
        elif t is _C.device:
            rv = (self._names.device, (obj.type,) if obj.index is None else (obj.type, obj.index))
        elif t is Size:
            rv = (self._names.size, (tuple(obj),))
        elif t is _C.layout:
            rv = (self._names.layout, (str(obj),))
        else:
            return NotImplemented
        self.used.add(rv[0].__name__)
        if rv[0] is self._names.from_type:
            self.used.add(self._names.rebuild_v2.__name__)
            if rv[1][1] is self._names.tensor:
                self.used.add(self._names.tensor.__name__)
        return rv


_STUB_MODULE = _stubs.__name__.encode()
_DTYPE_CALL = re.compile(
    b"c" + re.escape(_STUB_MODULE) + rb"\ndtype_(\w+)\n(q.|r....)\)R", re.DOTALL
)


def rewrite_stubs(data: bytes, used: set[str]) -> bytes | None:
    """Rename the stand-ins' GLOBAL lines to torch names; None if that would be ambiguous.

    The C pickler memoizes globals, so each stand-in used appears exactly once;
    a dtype stand-in is followed by ``BINPUT ) REDUCE`` (a call), which is
    dropped so the memo slot holds the dtype itself, as in PyTorch's pickles.
    """
    dtypes = {u for u in used if u.startswith("dtype_")}
    for name in used - dtypes:
        module, torch_name = _stubs.TORCH_NAMES[name]
        line = b"c" + _STUB_MODULE + b"\n" + name.encode() + b"\n"
        if data.count(line) != 1:
            return None
        data = data.replace(line, f"c{module}\n{torch_name}\n".encode())
    data, n = _DTYPE_CALL.subn(lambda m: b"ctorch\n" + m.group(1) + b"\n" + m.group(2), data)
    if n != len(dtypes) or _STUB_MODULE in data:
        return None  # user data spelled a stand-in name: let the general path handle it
    return data


def dumps(obj: Any, protocol: int, table: StorageTable) -> bytes:
    """``data.pkl`` for ``obj``: tensors as persistent ids, names as PyTorch writes them."""
    if protocol <= 3:  # no frames: GLOBAL lines can be renamed in place
        buf = io.BytesIO()
        pickler = _StubPickler(buf, protocol, table)
        pickler.dump(obj)
        data = rewrite_stubs(buf.getvalue(), pickler.used)
        if data is not None:
            return data
        table.entries.clear()
        table._by_storage.clear()
    buf = io.BytesIO()
    TorchPickler(buf, protocol, table).dump(obj)
    return buf.getvalue()
