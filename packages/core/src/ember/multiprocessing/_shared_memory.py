"""Shared-memory segments that back tensor storages (``Tensor.share_memory_``).

A :class:`Segment` is a file in shared memory mapped into this process. Under the
default ``file_descriptor`` strategy the file has no name (``memfd_create``, or an
unlinked file on other POSIX systems): it lives exactly as long as some process holds
an fd or a mapping of it, so nothing can leak, even when a process is killed. Under
``file_system`` the file has a name in /dev/shm that other processes open; the creator
removes the name when its segment is released or the process exits.

A tensor over a segment is made with ``ember._C._from_buffer``; the segment is the
storage's owner, so the mapping is released when the last tensor using it dies.
"""

from __future__ import annotations

import atexit
import ctypes
import itertools
import os
import sys
import tempfile
import threading
import weakref
from typing import Any

from ember._lib import _C

_SHARING_STRATEGIES = ("file_descriptor", "file_system")
_strategy = "file_descriptor"

_PROT_READ_WRITE = 0x1 | 0x2
_MAP_SHARED = 0x01
_MAP_FAILED = ctypes.c_void_p(-1).value


def _load_libc() -> Any:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                          ctypes.c_long]
    libc.munmap.restype = ctypes.c_int
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return libc


_libc = _load_libc()
_counter = itertools.count()
_lock = threading.Lock()
# Segments by id, so that a storage received twice (or sent back to its creator) maps to
# one segment and the tensors rebuilt from it alias each other, as they did in the sender.
_by_uid: weakref.WeakValueDictionary[tuple[int, int], Segment] = weakref.WeakValueDictionary()
# Segments by mapped address, to find the segment behind a tensor's storage.
_by_ptr: weakref.WeakValueDictionary[int, Segment] = weakref.WeakValueDictionary()
# Names this process created under file_system (removed at exit if still present).
_owned_names: set[str] = set()


def get_sharing_strategy() -> str:
    """The strategy used to share tensors between processes (see ``set_sharing_strategy``)."""
    return _strategy


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose how tensors travel between processes: ``'file_descriptor'`` (default: the
    segment's fd is passed; nothing is ever left behind) or ``'file_system'`` (the segment
    is opened by name in /dev/shm; no fd is passed, which avoids fd limits)."""
    global _strategy
    if new_strategy not in _SHARING_STRATEGIES:
        raise ValueError(f"invalid sharing strategy {new_strategy!r}; "
                         f"expected one of {list(_SHARING_STRATEGIES)}")
    _strategy = new_strategy


def get_all_sharing_strategies() -> set[str]:
    """The sharing strategies this platform supports."""
    return set(_SHARING_STRATEGIES)


def _shm_dir() -> str:
    return "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


def _new_anonymous_fd(size: int) -> int:
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("ember_shm", os.MFD_CLOEXEC)
    else:  # other POSIX: a file that is unlinked at once has no name either
        path = os.path.join(_shm_dir(), f"ember_{os.getpid()}_{next(_counter)}")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        os.unlink(path)
    _truncate(fd, size)
    return fd


def _new_named_fd(size: int) -> tuple[int, str]:
    path = os.path.join(_shm_dir(), f"ember_{os.getpid()}_{next(_counter)}")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    with _lock:
        _owned_names.add(path)
    _truncate(fd, size)
    return fd, path


def _truncate(fd: int, size: int) -> None:
    try:
        os.ftruncate(fd, size)
    except OSError as e:
        os.close(fd)
        raise RuntimeError(f"unable to allocate {size} bytes of shared memory: {e}") from None


def _map(fd: int, size: int) -> int:
    ptr = _libc.mmap(None, size, _PROT_READ_WRITE, _MAP_SHARED, fd, 0)
    if ptr is None or ptr == _MAP_FAILED:
        err = ctypes.get_errno()
        raise RuntimeError(f"unable to mmap {size} bytes of shared memory: {os.strerror(err)}")
    return ptr


class Segment:
    """A shared-memory file mapped into this process; owner of the storages built on it.

    ``nbytes`` is the storage size; the file and the mapping are at least one byte so
    that empty storages are shareable too."""

    __slots__ = ("fd", "ptr", "nbytes", "uid", "name", "__weakref__")

    def __init__(self, fd: int, nbytes: int, uid: tuple[int, int], name: str | None = None,
                 creator: bool = False, keep_fd: bool = True) -> None:
        self.fd = fd
        self.nbytes = nbytes
        self.uid = uid
        self.name = name
        self.ptr = 0
        try:
            self.ptr = _map(fd, max(nbytes, 1))
        except BaseException:
            os.close(fd)
            self.fd = -1
            raise
        if not keep_fd:
            # The mapping keeps the memory alive; without the fd this segment cannot be
            # passed on as is (it is copied instead), but it holds no file descriptor.
            os.close(fd)
            self.fd = fd = -1
        # Released from a weakref callback rather than __del__: callbacks run once the
        # weak references are cleared, so a lookup in _by_uid/_by_ptr racing with the
        # release (another thread) can never hand out a segment that is being unmapped.
        unlink = name if creator and name is not None else None
        _releasers.add(weakref.ref(self, _releaser(self.ptr, max(nbytes, 1), fd, unlink, uid[0])))
        with _lock:
            _by_uid[uid] = self
            _by_ptr[self.ptr] = self

    @classmethod
    def create(cls, nbytes: int, strategy: str | None = None) -> Segment:
        """A new zero-filled segment of ``nbytes`` bytes."""
        uid = (os.getpid(), next(_counter))
        if (strategy or _strategy) == "file_system":
            fd, name = _new_named_fd(max(nbytes, 1))
            return cls(fd, nbytes, uid, name, creator=True)
        return cls(_new_anonymous_fd(max(nbytes, 1)), nbytes, uid, creator=True)

    @classmethod
    def attach(cls, fd: int, nbytes: int, uid: tuple[int, int], keep_fd: bool = True) -> Segment:
        """Map a segment received from another process (takes ownership of ``fd``);
        returns the existing segment, closing ``fd``, if this process already maps it."""
        seg = _by_uid.get(uid)
        if seg is not None and seg.nbytes == nbytes:
            os.close(fd)
            return seg
        return cls(fd, nbytes, uid, keep_fd=keep_fd)

    def tensor(self, dtype: Any, sizes: tuple[int, ...] | list[int], strides: tuple[int, ...] | list[int],
               offset: int = 0) -> Any:
        """A tensor over this segment with the given geometry (in elements of ``dtype``)."""
        itemsize = _ITEMSIZE.get(dtype) or _C.empty(0, dtype=dtype).element_size()
        flat = _C._from_buffer(self.ptr, self.nbytes, [self.nbytes // itemsize], [1], dtype, self)
        t = _C._as_strided_storage(flat, list(sizes), list(strides), offset)
        _C._mark_shared(t, True)
        return t

    def __repr__(self) -> str:
        return f"Segment(uid={self.uid}, nbytes={self.nbytes}, fd={self.fd}, name={self.name!r})"


_releasers: set[weakref.ref[Segment]] = set()


def _releaser(ptr: int, size: int, fd: int, name: str | None, creator_pid: int) -> Any:
    def release(ref: weakref.ref[Segment]) -> None:
        _releasers.discard(ref)
        if _libc is not None:
            _libc.munmap(ptr, size)
        try:
            os.close(fd)
        except OSError:
            pass
        if name is not None and os.getpid() == creator_pid:
            _unlink_owned(name)
    return release


def _unlink_owned(name: str) -> None:
    with _lock:
        _owned_names.discard(name)
    try:
        os.unlink(name)
    except (FileNotFoundError, TypeError):  # TypeError: os already torn down at exit
        pass


@atexit.register
def _remove_owned_names() -> None:
    for name in list(_owned_names):
        _unlink_owned(name)


def _reset_after_fork() -> None:
    # A forked child inherits the parent's bookkeeping; the names stay the parent's.
    global _lock
    _lock = threading.Lock()
    _owned_names.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)

_ITEMSIZE: dict[Any, int] = {}
# dtypes travel by name: pickling a dtype object makes pickle search sys.modules for it.
DTYPE_NAMES: dict[Any, str] = {}
DTYPES_BY_NAME: dict[str, Any] = {}
for _name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
              "complex64", "complex128", "uint16", "uint32", "uint64"):
    if hasattr(_C, _name):
        _dt = getattr(_C, _name)
        _ITEMSIZE[_dt] = _C.empty(0, dtype=_dt).element_size()
        DTYPE_NAMES[_dt] = _name
        DTYPES_BY_NAME[_name] = _dt


def _numel(sizes: list[int]) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n


def _contiguous_strides(sizes: list[int]) -> list[int]:
    strides, acc = [0] * len(sizes), 1
    for i in range(len(sizes) - 1, -1, -1):
        strides[i] = acc
        acc *= max(sizes[i], 1)
    return strides


def segment_of(t: Any) -> Segment | None:
    """The segment behind ``t``'s storage, or None if it is not in one of ours."""
    _key, ptr, nbytes, _shared = _C._storage_info(t)
    seg = _by_ptr.get(ptr)
    return seg if seg is not None and seg.nbytes == nbytes else None


def empty_shared(sizes: tuple[int, ...] | list[int], dtype: Any) -> Any:
    """A new contiguous tensor allocated directly in shared memory (zero-filled)."""
    sizes = list(sizes)
    itemsize = _ITEMSIZE.get(dtype) or _C.empty(0, dtype=dtype).element_size()
    seg = Segment.create(_numel(sizes) * itemsize)
    return seg.tensor(dtype, sizes, _contiguous_strides(sizes))


def empty_shared_many(specs: list[tuple[tuple[int, ...] | list[int], Any]]) -> list[Any]:
    """New contiguous tensors of the given (sizes, dtype) in *one* segment: one file, one
    mapping and one fd for a whole batch instead of one per tensor."""
    offsets, total = [], 0
    for sizes, dtype in specs:
        total = (total + 63) // 64 * 64  # cache-line aligned, so also aligned for any dtype
        offsets.append(total)
        total += _numel(list(sizes)) * (_ITEMSIZE.get(dtype) or _C.empty(0, dtype=dtype).element_size())
    seg = Segment.create(total)
    out = []
    for (sizes, dtype), offset in zip(specs, offsets, strict=True):
        itemsize = _ITEMSIZE.get(dtype) or _C.empty(0, dtype=dtype).element_size()
        sizes = list(sizes)
        out.append(seg.tensor(dtype, sizes, _contiguous_strides(sizes), offset // itemsize))
    return out


def copy_to_shared(t: Any) -> Any:
    """A contiguous copy of ``t`` in a new segment (``t`` itself is left as it is)."""
    out = empty_shared(list(t.shape), t.dtype)
    out.copy_(t.detach() if t.requires_grad else t)
    return out


def share_memory_(t: Any) -> Any:
    """``Tensor.share_memory_``: move ``t``'s storage into a segment, in place.

    The whole storage moves (so offsets and strides stay valid) and ``t`` is re-pointed at
    it; a no-op when the storage is already shared. Other tensors that viewed the old
    storage keep it: only ``t`` moves.
    """
    if t.device.type == "meta":
        raise RuntimeError("_share_fd_: only available on CPU")
    if t.device.type != "cpu":
        return t
    _key, ptr, nbytes, shared = _C._storage_info(t)
    if shared and segment_of(t) is not None:
        return t
    seg = Segment.create(nbytes)
    if nbytes:
        ctypes.memmove(seg.ptr, ptr, nbytes)
    moved = seg.tensor(t.dtype, list(t.shape), list(t.stride()), t.storage_offset())
    _C._set_(t, moved)
    _C._mark_shared(t, True)
    return t


def is_shared(t: Any) -> bool:
    return bool(_C._storage_info(t)[3])


if sys.platform == "win32":  # pragma: no cover - ember's shared memory is POSIX only
    raise ImportError("ember.multiprocessing shared memory needs a POSIX system")
