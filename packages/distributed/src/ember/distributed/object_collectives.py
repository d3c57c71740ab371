"""Collectives of picklable Python objects (pickle-based: unsafe with untrusted peers, as in
PyTorch). Objects travel as uint8 tensors through the tensor collectives, so the group's
timeout and failure detection hold for them too."""

from __future__ import annotations

import ctypes
import pickle
from typing import Any

import ember

from . import collectives as C
from .process_group import GroupMember, resolve


def _to_tensor(obj: Any) -> Any:
    data = pickle.dumps(obj)
    t = ember.empty(len(data), dtype=ember.uint8)
    if data:
        ctypes.memmove(t.data_ptr(), data, len(data))
    return t


def _from_tensor(t: Any, n: int) -> Any:
    t = t.contiguous()
    return pickle.loads(ctypes.string_at(t.data_ptr(), n))


def _sizes(group: Any, t: Any) -> list[int]:
    pg = resolve(group)
    mine = ember.tensor([t.numel()], dtype=ember.int64)
    sizes = [ember.zeros(1, dtype=ember.int64) for _ in range(pg.size())]
    C.all_gather(sizes, mine, group=group)
    return [int(s.item()) for s in sizes]


def _padded(t: Any, n: int) -> Any:
    out = ember.zeros(n, dtype=ember.uint8)
    out[: t.numel()] = t
    return out


def all_gather_object(object_list: list[Any], obj: Any, group: Any = None) -> None:
    """Gathers every rank's picklable ``obj`` into ``object_list`` (in rank order) on every rank.

    The objects are pickled: only exchange objects with ranks you trust.

    Args:
        object_list (list): a list of world-size length, filled in place.
        obj: this rank's object.
        group (ProcessGroup, optional): the group to work in (the default group if None).
    """
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    pg = resolve(group)
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list must have the group size "
                         f"{pg.size()} entries, got {len(object_list)}")
    t = _to_tensor(obj)
    sizes = _sizes(group, t)
    width = max(sizes)
    outs = [ember.empty(width, dtype=ember.uint8) for _ in sizes]
    C.all_gather(outs, _padded(t, width), group=group)
    for i, (o, n) in enumerate(zip(outs, sizes)):
        object_list[i] = _from_tensor(o, n)


def broadcast_object_list(object_list: list[Any], src: int | None = None, group: Any = None,
                          device: Any = None, group_src: int | None = None) -> None:
    """Copies the objects of ``object_list`` on rank ``src`` into ``object_list`` on every other rank.

    The objects are pickled: only exchange objects with ranks you trust.

    Args:
        object_list (list): the objects on ``src``; a list of the same length elsewhere.
        src (int): the global rank that sends.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        device: accepted for compatibility.
    """
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    pg = resolve(group)
    root = C._root(pg, src, group_src, "broadcast_object_list", "src")
    n = ember.zeros(1, dtype=ember.int64)
    if pg.rank() == root:
        t = _to_tensor(list(object_list))
        n.fill_(t.numel())
    C.broadcast(n, group=group, group_src=root)
    if pg.rank() != root:
        t = ember.empty(int(n.item()), dtype=ember.uint8)
    C.broadcast(t, group=group, group_src=root)
    if pg.rank() != root:
        objs = _from_tensor(t, int(n.item()))
        for i in range(len(object_list)):
            object_list[i] = objs[i]


def gather_object(obj: Any, object_gather_list: list[Any] | None = None, dst: int | None = None,
                  group: Any = None, group_dst: int | None = None) -> None:
    """Gathers every rank's picklable ``obj`` into ``object_gather_list`` on rank ``dst``.

    The objects are pickled: only exchange objects with ranks you trust.

    Args:
        obj: this rank's object.
        object_gather_list (list, optional): a world-size list on ``dst`` only.
        dst (int): the global rank that receives.
        group (ProcessGroup, optional): the group to work in (the default group if None).
    """
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    pg = resolve(group)
    root = C._root(pg, dst, group_dst, "gather_object", "dst")
    t = _to_tensor(obj)
    sizes = _sizes(group, t)
    width = max(sizes)
    me = pg.rank() == root
    if me and (object_gather_list is None or len(object_gather_list) != pg.size()):
        raise ValueError(f"gather_object: object_gather_list must have {pg.size()} entries on "
                         "the destination rank")
    outs = [ember.empty(width, dtype=ember.uint8) for _ in sizes] if me else None
    C.gather(_padded(t, width), outs, group=group, group_dst=root)
    if me and outs is not None and object_gather_list is not None:
        for i, (o, n) in enumerate(zip(outs, sizes)):
            object_gather_list[i] = _from_tensor(o, n)


def scatter_object_list(scatter_object_output_list: list[Any],
                        scatter_object_input_list: list[Any] | None = None, src: int | None = None,
                        group: Any = None, group_src: int | None = None) -> None:
    """Sends ``scatter_object_input_list[i]`` from rank ``src`` to rank ``i``, which finds it in
    ``scatter_object_output_list[0]``.

    The objects are pickled: only exchange objects with ranks you trust.

    Args:
        scatter_object_output_list (list): a list of length at least 1, filled in place.
        scatter_object_input_list (list, optional): the objects, on ``src`` only.
        src (int): the global rank that sends.
        group (ProcessGroup, optional): the group to work in (the default group if None).
    """
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    pg = resolve(group)
    root = C._root(pg, src, group_src, "scatter_object_list", "src")
    objs: list[Any] = [None]
    if pg.rank() == root:
        objs = [list(scatter_object_input_list or [])]
    broadcast_object_list(objs, group=group, group_src=root)
    items = objs[0]
    if len(items) != pg.size():
        raise ValueError(f"scatter_object_list: the input list must have {pg.size()} entries")
    scatter_object_output_list[0] = items[pg.rank()]


def send_object_list(object_list: list[Any], dst: int | None = None, group: Any = None,
                     device: Any = None, group_dst: int | None = None) -> None:
    """Sends the picklable objects of ``object_list`` to rank ``dst``.

    The objects are pickled: only exchange objects with ranks you trust.

    Args:
        object_list (list): the objects.
        dst (int): the global rank that receives.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        device: accepted for compatibility.
    """
    t = _to_tensor(list(object_list))
    C.send(ember.tensor([t.numel()], dtype=ember.int64), dst, group, group_dst=group_dst)
    C.send(t, dst, group, group_dst=group_dst)


def recv_object_list(object_list: list[Any], src: int | None = None, group: Any = None,
                     device: Any = None, group_src: int | None = None) -> int:
    """Receives objects from rank ``src`` (any rank if None) into ``object_list``, in place.

    The objects are pickled: only exchange objects with ranks you trust.

    Args:
        object_list (list): a list as long as the one sent.
        src (int, optional): the global rank that sends.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        device: accepted for compatibility.

    Returns:
        The sender's rank.
    """
    n = ember.zeros(1, dtype=ember.int64)
    sender = C.recv(n, src, group, group_src=group_src)
    t = ember.empty(int(n.item()), dtype=ember.uint8)
    C.recv(t, sender, group)
    objs = _from_tensor(t, int(n.item()))
    for i in range(len(object_list)):
        object_list[i] = objs[i]
    return sender
