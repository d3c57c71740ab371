"""``ember.load``: checkpoints written by ``torch.save`` or ``ember.save``.

Each storage record is read with one ``readinto`` straight into a fresh
tensor (or, with ``mmap=True``, viewed in place in a private memory map of
the file).  ``weights_only=True`` (the default) unpickles with the
allow-list interpreter of ``_weights_only.py``; ``weights_only=False`` uses
``pickle`` with torch names mapped to ember objects, never importing torch.
"""

from __future__ import annotations

import ctypes
import io
import os
import pickle
import warnings
from typing import Any

from ember._lib import _C
from ember.serialization._location import restorer
from ember.serialization._storage import LoadedStorage, StorageType, TypedStorage
from ember.serialization._unpickler import make_unpickler
from ember.serialization._weights_only import WeightsUnpickler
from ember.serialization._zip_reader import Source, ZipReader

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely "
    "succeed, but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)
_TRUE = ("1", "y", "yes", "true")


def _weights_only_message(message: str) -> str:
    if "was not an allowed global by default" in message:
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "do those steps only if you trust the source of the checkpoint.\n\t(1) " + UNSAFE_MESSAGE
            + "\n\t(2) Alternatively, to load with `weights_only=True` please check the recommended "
            "steps in the following error message.\n\tWeightsUnpickler error: " + message
        )
    return f"Weights only load failed. {UNSAFE_MESSAGE}\n\nWeightsUnpickler error: {message}"


def _resolve_weights_only(weights_only: Any, pickle_module: Any) -> bool:
    if os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE:
        if os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE:
            raise RuntimeError(
                "Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                "should be set, but both were set."
            )
        return True
    if weights_only is None:
        if os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE:
            warnings.warn(
                "Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the`weights_only` "
                "argument was not explicitly passed to `torch.load`, forcing weights_only=False.",
                UserWarning, stacklevel=3,
            )
            return False
        return pickle_module is None
    return bool(weights_only)


class _Checkpoint:
    """One open archive: reads storages on demand and caches them by key."""

    def __init__(self, reader: ZipReader, map_location: Any, mapped: Any) -> None:
        self.reader = reader
        self.restore = restorer(map_location)
        self.mapped = mapped  # (ctypes anchor of a private mmap, its address) or None
        self.storages: dict[str, LoadedStorage] = {}

    def _read(self, name: str, nbytes: int) -> Any:
        if self.mapped is not None:
            anchor, address = self.mapped
            offset = self.reader.data_offset(name) if nbytes else 0
            return _C._from_buffer(address + offset, nbytes, [nbytes], [1], _C.uint8, anchor)
        t = _C.empty(nbytes, dtype=_C.uint8)
        if nbytes:
            buf = (ctypes.c_char * nbytes).from_address(t.data_ptr())
            self.reader.readinto(name, memoryview(buf).cast("B"))
        return t

    def persistent_load(self, pid: Any) -> TypedStorage:
        if type(pid) is not tuple or len(pid) != 5:
            raise pickle.UnpicklingError(f"persistent id must be a 5-tuple ('storage', ...), got {pid!r:.80}")
        typename, storage_type, key, location, numel = pid
        if isinstance(typename, bytes):
            typename = typename.decode("ascii")
        if typename != "storage":
            raise pickle.UnpicklingError(
                f"Unknown typename for persistent_load, expected 'storage' but got {typename!r}"
            )
        if not isinstance(storage_type, StorageType):
            raise pickle.UnpicklingError(f"persistent id names {storage_type!r}, not a storage type")
        key = key.decode("ascii") if isinstance(key, bytes) else key
        location = location.decode("ascii") if isinstance(location, bytes) else location
        if type(key) is not str or type(location) is not str or type(numel) is not int or numel < 0:
            raise pickle.UnpicklingError(f"malformed persistent id {pid!r:.120}")
        dtype = storage_type.dtype
        storage = self.storages.get(key)
        if storage is None:
            name = f"data/{key}"
            nbytes = numel * dtype.itemsize
            size = self.reader.size(name)
            if size != nbytes:
                raise RuntimeError(
                    f"record size ({size} bytes) does not match expected size ({nbytes} bytes = "
                    f"{numel} elements * {dtype.itemsize} bytes/element) for dtype {dtype}"
                )
            storage = self.restore(LoadedStorage(self._read(name, nbytes)), location)
            self.storages[key] = storage
        return TypedStorage(storage, dtype)


def _open(f: Any, want_mmap: bool) -> tuple[Source, Any, Any]:
    """(source, fd to close or None, mmap anchor or None)."""
    if isinstance(f, (str, os.PathLike)):
        fd = os.open(os.fsdecode(os.fspath(f)), os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            if want_mmap and os.fstat(fd).st_size:
                import mmap

                mm = mmap.mmap(fd, 0, access=mmap.ACCESS_COPY)  # private: writes never reach the file
                anchor = ctypes.c_char.from_buffer(mm)  # pins the map while tensors view it
                return Source(buffer=memoryview(mm)), fd, (anchor, ctypes.addressof(anchor))
            return Source(fd=fd), fd, None
        except BaseException:
            os.close(fd)
            raise
    if want_mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    if not (hasattr(f, "read") and hasattr(f, "seek") and hasattr(f, "tell")):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with 'read', 'seek' and 'tell'")
    try:
        f.tell()
        seekable = f.seekable() if hasattr(f, "seekable") else True
    except (OSError, io.UnsupportedOperation):
        seekable = False
    if not seekable:
        raise RuntimeError(
            "You can only torch.load from a file that is seekable. Please pre-load the data into a buffer "
            "like io.BytesIO and try to load from it instead."
        )
    return Source(fileobj=f), None, None


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: Any = None,
         mmap: Any = None, **pickle_load_args: Any) -> Any:
    """Load an object saved with ``ember.save`` or ``torch.save``.

    ``weights_only`` (default True) refuses any pickle that would import or call
    something outside the allow-list (see ``ember.serialization.add_safe_globals``).
    ``map_location``: None, a device/str, a dict of location tags, or a
    ``(storage, location) -> storage`` callable.  ``mmap=True`` maps the file
    instead of reading it (tensors view the mapping; a path is required).
    """
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
        if set(pickle_load_args) - {"encoding", "errors"}:
            warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=3)
    elif pickle_module is None:
        pickle_module = pickle
    pickle_load_args.setdefault("encoding", "utf-8")
    source, fd, mapped = _open(f, bool(mmap))
    try:
        if source.size < 4 or source.read(4, 0) != b"PK\x03\x04":
            raise _not_a_zip(f, source, bool(mmap))
        reader = ZipReader(source)
        if reader.has("constants.pkl"):
            raise RuntimeError("ember.load cannot load TorchScript archives (saved with torch.jit.save)")
        if reader.has("byteorder") and reader.read("byteorder") != b"little":
            raise NotImplementedError("ember.load: big-endian checkpoints are not supported")
        ckpt = _Checkpoint(reader, map_location, mapped)
        data = reader.read("data.pkl")
        if weights_only:
            try:
                return WeightsUnpickler(data, ckpt.persistent_load, pickle_load_args["encoding"],
                                        pickle_load_args.get("errors", "strict")).load()
            except pickle.UnpicklingError as e:
                raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
        unpickler = make_unpickler(pickle_module, io.BytesIO(data), ckpt.persistent_load, pickle_load_args)
        return unpickler.load()
    finally:
        if fd is not None:
            os.close(fd)
        if source.fileobj is not None:
            source.fileobj.seek(source.base + source.size)


def _not_a_zip(f: Any, source: Source, mmap: bool) -> Exception:
    if mmap:
        name = f"{f}, " if isinstance(f, str) else ""
        return RuntimeError(
            "mmap can only be used with files saved with "
            f"`torch.save({name}_use_new_zipfile_serialization=True), "
            "please torch.save your checkpoint with this option in order to use mmap."
        )
    if source.size == 0:
        return EOFError("Ran out of input")
    head = source.read(min(source.size, 16), 0)
    if head[:2] == b"\x80\x02" and b"\x8a\x0a" in head:  # pickled legacy magic number
        return NotImplementedError(
            "ember.load: this checkpoint uses PyTorch's legacy (pre-1.6, non-zip) format, which ember "
            "does not read; re-save it with torch.save(obj, f) in PyTorch >= 1.6"
        )
    return pickle.UnpicklingError(
        "ember.load: not a checkpoint: the file is not a zip archive written by torch.save / ember.save"
    )
