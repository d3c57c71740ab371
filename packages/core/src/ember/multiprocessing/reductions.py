"""Pickling tensors for ``multiprocessing``: the storage moves to shared memory and only
a handle to it travels (an fd under ``file_descriptor``, a file name under
``file_system``), never a copy of the data.

The reductions are registered with ``multiprocessing.reduction.ForkingPickler``, which is
what queues, pipes and the ``spawn``/``forkserver`` start methods use to pickle, so
``Queue.put(tensor)`` and ``Process(args=(tensor,))`` share memory in every start method.
(Under ``fork`` a child inherits the parent's memory; a shared tensor stays shared.)
"""

from __future__ import annotations

import os
from multiprocessing.reduction import DupFd, ForkingPickler
from typing import Any

from ember._lib import _C
from ember.multiprocessing import _shared_memory as shm

_NON_LEAF_MSG = (
    "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not "
    "support crossing process boundaries.  If you just want to transfer the data, call detach() on "
    "the tensor before serializing (e.g., putting it on the queue)."
)


def _geometry(t: Any) -> tuple[str, list[int], list[int], int]:
    return shm.DTYPE_NAMES[t.dtype], list(t.shape), list(t.stride()), t.storage_offset()


def _check_autograd(t: Any) -> None:
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(_NON_LEAF_MSG)


def _finish(t: Any, cls: type, requires_grad: bool) -> Any:
    from ember import Tensor

    if cls is not Tensor:
        t = _rebuild_subclass(cls, t, requires_grad)
    elif requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_subclass(cls: type, t: Any, requires_grad: bool) -> Any:
    # Parameter-like subclasses take (data, requires_grad); others get the base tensor's
    # storage through Tensor.set_ on an instance made with no data.
    try:
        return cls(t, requires_grad)  # type: ignore[call-arg]
    except TypeError:
        out = cls.__new__(cls)
        out.set_(t)
        if requires_grad:
            out.requires_grad_(True)
        return out


def rebuild_tensor_fd(dupfd: Any, nbytes: int, uid: tuple[int, int], dtype: str, sizes: list[int],
                      strides: list[int], offset: int, cls: type, requires_grad: bool) -> Any:
    """Unpickle a tensor whose storage arrives as a file descriptor."""
    seg = shm.Segment.attach(dupfd.detach(), nbytes, uid)
    return _finish(seg.tensor(shm.DTYPES_BY_NAME[dtype], sizes, strides, offset), cls, requires_grad)


def rebuild_tensor_filename(name: str, nbytes: int, uid: tuple[int, int], dtype: str, sizes: list[int],
                            strides: list[int], offset: int, cls: type, requires_grad: bool) -> Any:
    """Unpickle a tensor whose storage is a named file in shared memory. The name was
    minted for this one message: the receiver removes it once the file is open."""
    seg = shm._by_uid.get(uid)
    if seg is None or seg.nbytes != nbytes:
        try:
            fd = os.open(name, os.O_RDWR)
        except FileNotFoundError:
            raise RuntimeError(
                f"shared memory segment {name!r} no longer exists: under the 'file_system' sharing "
                "strategy a tensor must be received before its sending process exits") from None
        seg = shm.Segment.attach(fd, nbytes, uid)
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass
    return _finish(seg.tensor(shm.DTYPES_BY_NAME[dtype], sizes, strides, offset), cls, requires_grad)


def reduce_tensor(t: Any) -> tuple[Any, tuple[Any, ...]]:
    """ForkingPickler reduction: share ``t``'s storage (in place, as ``share_memory_``
    does) and pickle a handle to it."""
    _check_autograd(t)
    shm.share_memory_(t)
    seg = shm.segment_of(t)
    if seg is None or seg.fd < 0:
        # Flagged shared by someone else, or a segment kept without its fd (a DataLoader
        # batch): move it to a segment of our own.
        _C._mark_shared(t, False)
        shm.share_memory_(t)
        seg = shm.segment_of(t)
    dtype, sizes, strides, offset = _geometry(t)
    meta = (seg.nbytes, seg.uid, dtype, sizes, strides, offset, type(t), bool(t.requires_grad))
    if shm.get_sharing_strategy() == "file_system" and seg.name is not None:
        return rebuild_tensor_filename, (_mint_name(seg), *meta)
    return rebuild_tensor_fd, (DupFd(seg.fd), *meta)


def _mint_name(seg: shm.Segment) -> str:
    """A fresh hard link to the segment's file for one message (its receiver unlinks it),
    so that receiving never depends on the sender still holding the tensor."""
    name = f"{seg.name}_{next(shm._counter)}"
    os.link(seg.name, name)
    with shm._lock:
        shm._owned_names.add(name)
    return name


_registered: set[type] = set()


def register_tensor_type(cls: type) -> None:
    """Teach ForkingPickler to share tensors of ``cls`` (ForkingPickler looks reducers
    up by exact type, so each Tensor subclass is registered on its own)."""
    if cls not in _registered:
        ForkingPickler.register(cls, reduce_tensor)
        _registered.add(cls)


def init_reductions() -> None:
    """Register the tensor reductions for ``Tensor`` and its subclasses known so far."""
    from ember import Tensor

    todo = [Tensor]
    while todo:
        cls = todo.pop()
        register_tensor_type(cls)
        todo.extend(cls.__subclasses__())
