"""The tensor collectives and point-to-point ops of torch.distributed (c10d's Python API).

Each checks its arguments as PyTorch does, maps global ranks (``src``/``dst``) or group ranks
(``group_src``/``group_dst``) to the group's, and runs on the group's MPI communicator; with
``async_op=True`` it returns the ``Work``, else waits for it (the group's timeout).
"""

from __future__ import annotations

from typing import Any

import ember

from ._debug import check_collective
from ._work import Work
from .process_group import GroupMember, ProcessGroup, resolve
from .reduce_op import ReduceOp, as_reduce_op


def _tensor(t: Any, fn: str, arg: str = "tensor") -> Any:
    if not isinstance(t, ember.Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' must be Tensor, not {type(t).__name__}")
    if t.device.type != "cpu":
        raise RuntimeError(f"{fn}: no backend for device type {t.device.type} (ember's "
                           "collectives run on CPU tensors)")
    return t


def _tensor_list(ts: Any, fn: str, arg: str) -> list[Any]:
    if not isinstance(ts, (list, tuple)):
        raise TypeError(f"{fn}(): argument '{arg}' must be a list of Tensors, not "
                        f"{type(ts).__name__}")
    return [_tensor(t, fn, arg) for t in ts]


def _member(group: Any) -> ProcessGroup | None:
    """The group, or None when this rank is not in it (the op is then a no-op, as in torch)."""
    if group == GroupMember.NON_GROUP_MEMBER:
        return None
    pg = resolve(group)
    return pg if pg.rank() >= 0 else None


def _root(pg: ProcessGroup, glob: int | None, local: int | None, fn: str, what: str) -> int:
    """The group rank of a root given as a global rank or as a group rank (one, not both)."""
    if glob is not None and local is not None:
        raise ValueError(f"{fn}: can only specify {what} or group_{what}, not both")
    if local is not None:
        if not 0 <= local < pg.size():
            raise ValueError(f"{fn}: group_{what} {local} is out of range for a group of "
                             f"{pg.size()} ranks")
        return local
    glob = 0 if glob is None else int(glob)
    if glob not in pg._ranks:
        raise ValueError(f"{fn}: {what} rank {glob} is not part of the group (ranks {pg._ranks})")
    return pg._ranks.index(glob)


def _finish(work: Work, async_op: bool) -> Work | None:
    if async_op:
        return work
    work.wait()
    return None


def _same_as(ts: list[Any], like: Any, fn: str, arg: str) -> None:
    for i, t in enumerate(ts):
        if t.dtype != like.dtype:
            raise RuntimeError(f"{fn}: invalid tensor type at index {i} of '{arg}' (expected "
                               f"{like.dtype}, got {t.dtype})")
        if t.numel() != like.numel():
            raise RuntimeError(f"{fn}: invalid tensor size at index {i} of '{arg}' (expected "
                               f"{like.numel()}, got {t.numel()})")


def all_reduce(tensor: Any, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False) -> Any:
    """Combines ``tensor`` across every rank of the group with ``op``; every rank ends with the
    result, in place.

    Args:
        tensor (Tensor): the input and, afterwards, the output.
        op (ReduceOp): how values combine (``ReduceOp.SUM`` by default; also PRODUCT, MIN, MAX, AVG...).
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    _tensor(tensor, "all_reduce")
    red = as_reduce_op(op, "all_reduce")
    pg = _member(group)
    if pg is None:
        return None
    check_collective(pg, "ALLREDUCE", [tensor])
    return _finish(pg._mpi().allreduce(tensor, red), async_op)


def reduce(tensor: Any, dst: int | None = None, op: Any = ReduceOp.SUM, group: Any = None,
           async_op: bool = False, group_dst: int | None = None) -> Any:
    """Combines ``tensor`` across the group with ``op`` into rank ``dst``'s ``tensor``; the other
    ranks' tensors are left as they were.

    Args:
        tensor (Tensor): the input (and on ``dst`` the output).
        dst (int): the global rank that receives the result.
        op (ReduceOp): how values combine (``ReduceOp.SUM`` by default; also PRODUCT, MIN, MAX, AVG...).
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.
        group_dst (int, optional): ``dst`` as a rank within ``group`` (give one of the two).

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    _tensor(tensor, "reduce")
    red = as_reduce_op(op, "reduce")
    pg = _member(group)
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "reduce", "dst")
    check_collective(pg, "REDUCE", [tensor])
    return _finish(pg._mpi().reduce(tensor, root, red), async_op)


def broadcast(tensor: Any, src: int | None = None, group: Any = None, async_op: bool = False,
              group_src: int | None = None) -> Any:
    """Copies rank ``src``'s ``tensor`` into ``tensor`` on every other rank of the group.

    Args:
        tensor (Tensor): the data on ``src``; receives it elsewhere.
        src (int): the global rank that sends.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.
        group_src (int, optional): ``src`` as a rank within ``group`` (give one of the two).

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    _tensor(tensor, "broadcast")
    pg = _member(group)
    if pg is None:
        return None
    root = _root(pg, src, group_src, "broadcast", "src")
    check_collective(pg, "BROADCAST", [tensor])
    return _finish(pg._mpi().broadcast(tensor, root), async_op)


def all_gather(tensor_list: list[Any], tensor: Any, group: Any = None, async_op: bool = False) -> Any:
    """Gathers every rank's ``tensor`` into ``tensor_list`` (in rank order) on every rank.

    Args:
        tensor_list (list of Tensor): one output tensor per rank.
        tensor (Tensor): this rank's contribution.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    outs = _tensor_list(tensor_list, "all_gather", "tensor_list")
    _tensor(tensor, "all_gather")
    pg = _member(group)
    if pg is None:
        return None
    if len(outs) != pg.size():
        raise RuntimeError(f"all_gather: invalid output tensor list (expected length "
                           f"{pg.size()}, got {len(outs)})")
    _same_as(outs, tensor, "all_gather", "tensor_list")
    check_collective(pg, "ALLGATHER", [tensor])
    return _finish(pg._mpi().allgather(outs, tensor), async_op)


def all_gather_into_tensor(output_tensor: Any, input_tensor: Any, group: Any = None,
                           async_op: bool = False) -> Any:
    """Gathers every rank's ``input_tensor`` into one ``output_tensor``, concatenated (or stacked)
    along the first dimension in rank order, on every rank.

    Args:
        output_tensor (Tensor): world size times the input's first dimension.
        input_tensor (Tensor): this rank's contribution.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    _tensor(output_tensor, "all_gather_into_tensor", "output_tensor")
    _tensor(input_tensor, "all_gather_into_tensor", "input_tensor")
    pg = _member(group)
    if pg is None:
        return None
    _check_flat(output_tensor, input_tensor, pg.size(), "all_gather_into_tensor")
    check_collective(pg, "_ALLGATHER_BASE", [input_tensor])
    return _finish(pg._mpi().allgather_into(output_tensor, input_tensor), async_op)


def _check_flat(big: Any, small: Any, n: int, fn: str) -> None:
    if big.dtype != small.dtype:
        raise RuntimeError(f"{fn}: output and input must have the same dtype, got {big.dtype} "
                           f"and {small.dtype}")
    if big.numel() != small.numel() * n:
        raise RuntimeError(f"{fn}: invalid tensor size: the larger tensor must hold world_size "
                           f"({n}) times the smaller one's {small.numel()} elements, got "
                           f"{big.numel()} (shapes {list(big.shape)} and {list(small.shape)})")


def _root_list(pg: ProcessGroup, root: int, tensors: list[Any] | None, like: Any, fn: str,
               arg: str, role: str) -> list[Any] | None:
    """The per-rank list of gather/scatter: required (one tensor a rank) on the root only."""
    if pg.rank() != root:
        if tensors:
            raise ValueError(f"Argument ``{arg}`` must NOT be specified on non-{role} ranks.")
        return None
    ts = _tensor_list(tensors if tensors is not None else [], fn, arg)
    if len(ts) != pg.size():
        raise ValueError(f"{fn}: Argument ``{arg}`` must be specified on {role} rank with "
                         f"{pg.size()} tensors, got {len(ts)}")
    _same_as(ts, like, fn, arg)
    return ts


def gather(tensor: Any, gather_list: list[Any] | None = None, dst: int | None = None,
           group: Any = None, async_op: bool = False, group_dst: int | None = None) -> Any:
    """Gathers every rank's ``tensor`` into ``gather_list`` on rank ``dst``.

    Args:
        tensor (Tensor): this rank's contribution.
        gather_list (list of Tensor, optional): one output tensor per rank, on ``dst`` only.
        dst (int): the global rank that receives.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.
        group_dst (int, optional): ``dst`` as a rank within ``group`` (give one of the two).

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    _tensor(tensor, "gather")
    pg = _member(group)
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "gather", "dst")
    outs = _root_list(pg, root, gather_list, tensor, "gather", "gather_list", "destination")
    check_collective(pg, "GATHER", [tensor])
    return _finish(pg._mpi().gather(tensor, outs, root), async_op)


def scatter(tensor: Any, scatter_list: list[Any] | None = None, src: int | None = None,
            group: Any = None, async_op: bool = False, group_src: int | None = None) -> Any:
    """Sends ``scatter_list[i]`` from rank ``src`` to rank ``i``'s ``tensor``.

    Args:
        tensor (Tensor): receives this rank's piece.
        scatter_list (list of Tensor, optional): the pieces, on ``src`` only.
        src (int): the global rank that sends.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.
        group_src (int, optional): ``src`` as a rank within ``group`` (give one of the two).

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    _tensor(tensor, "scatter")
    pg = _member(group)
    if pg is None:
        return None
    root = _root(pg, src, group_src, "scatter", "src")
    ins = _root_list(pg, root, scatter_list, tensor, "scatter", "scatter_list", "source")
    check_collective(pg, "SCATTER", [tensor])
    return _finish(pg._mpi().scatter(tensor, ins, root), async_op)


def reduce_scatter_tensor(output: Any, input: Any, op: Any = ReduceOp.SUM, group: Any = None,
                          async_op: bool = False) -> Any:
    """As ``reduce_scatter`` with the pieces concatenated in one ``input`` tensor along the first
    dimension.

    Args:
        output (Tensor): receives this rank's piece.
        input (Tensor): world size pieces, concatenated.
        op (ReduceOp): how values combine (``ReduceOp.SUM`` by default; also PRODUCT, MIN, MAX, AVG...).
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    _tensor(output, "reduce_scatter_tensor", "output")
    _tensor(input, "reduce_scatter_tensor", "input")
    red = as_reduce_op(op, "reduce_scatter_tensor")
    pg = _member(group)
    if pg is None:
        return None
    _check_flat(input, output, pg.size(), "reduce_scatter_tensor")
    check_collective(pg, "_REDUCE_SCATTER_BASE", [input])
    return _finish(pg._mpi().reduce_scatter_tensor(output, input, red), async_op)


def reduce_scatter(output: Any, input_list: list[Any], op: Any = ReduceOp.SUM, group: Any = None,
                   async_op: bool = False) -> Any:
    """Combines the ``input_list`` of every rank element-wise with ``op`` and gives rank ``i`` the
    ``i``-th combined tensor, in ``output``.

    Args:
        output (Tensor): receives this rank's piece.
        input_list (list of Tensor): one tensor per rank.
        op (ReduceOp): how values combine (``ReduceOp.SUM`` by default; also PRODUCT, MIN, MAX, AVG...).
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    _tensor(output, "reduce_scatter", "output")
    ins = _tensor_list(input_list, "reduce_scatter", "input_list")
    red = as_reduce_op(op, "reduce_scatter")
    pg = _member(group)
    if pg is None:
        return None
    if len(ins) != pg.size():
        raise RuntimeError(f"reduce_scatter: invalid input tensor list (expected length "
                           f"{pg.size()}, got {len(ins)})")
    _same_as(ins, output, "reduce_scatter", "input_list")
    flat = ember.stack([t.reshape(output.shape) for t in ins])
    check_collective(pg, "REDUCE_SCATTER", [output])
    return _finish(pg._mpi().reduce_scatter_tensor(output, flat, red), async_op)


def all_to_all_single(output: Any, input: Any, output_split_sizes: list[int] | None = None,
                      input_split_sizes: list[int] | None = None, group: Any = None,
                      async_op: bool = False) -> Any:
    """``all_to_all`` on single tensors split along the first dimension, evenly or by the given
    split sizes.

    Args:
        output (Tensor): receives the pieces, concatenated in rank order.
        input (Tensor): the pieces to send, concatenated in rank order.
        output_split_sizes (list of int, optional): the size of each received piece.
        input_split_sizes (list of int, optional): the size of each sent piece.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    _tensor(output, "all_to_all_single", "output")
    _tensor(input, "all_to_all_single", "input")
    pg = _member(group)
    if pg is None:
        return None
    n = pg.size()
    if output.dtype != input.dtype:
        raise RuntimeError(f"all_to_all_single: output and input must have the same dtype, got "
                           f"{output.dtype} and {input.dtype}")
    for splits, t, arg in ((input_split_sizes, input, "input"), (output_split_sizes, output, "output")):
        if splits is None or len(splits) == 0:
            if t.dim() == 0 or t.shape[0] % n != 0:
                raise RuntimeError(f"all_to_all_single: {arg} tensor's first dimension "
                                   f"({list(t.shape)}) must be divisible by the group size {n}")
        elif len(splits) != n or sum(splits) != (t.shape[0] if t.dim() else 1):
            raise RuntimeError(f"all_to_all_single: {arg}_split_sizes {list(splits)} must have "
                               f"{n} entries adding up to {arg}.size(0)")
    check_collective(pg, "ALLTOALL_BASE", [input])
    return _finish(pg._mpi().alltoall_single(output, input, output_split_sizes or None,
                                             input_split_sizes or None), async_op)


def all_to_all(output_tensor_list: list[Any], input_tensor_list: list[Any], group: Any = None,
               async_op: bool = False) -> Any:
    """Sends ``input_tensor_list[j]`` to rank ``j`` and receives rank ``j``'s piece for this rank
    in ``output_tensor_list[j]``.

    Args:
        output_tensor_list (list of Tensor): one received tensor per rank.
        input_tensor_list (list of Tensor): one tensor to send per rank.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    outs = _tensor_list(output_tensor_list, "all_to_all", "output_tensor_list")
    ins = _tensor_list(input_tensor_list, "all_to_all", "input_tensor_list")
    pg = _member(group)
    if pg is None:
        return None
    n = pg.size()
    if len(outs) != n or len(ins) != n:
        raise RuntimeError(f"all_to_all: tensor lists must have the group size {n} entries, got "
                           f"{len(outs)} outputs and {len(ins)} inputs")
    check_collective(pg, "ALLTOALL", ins)
    return _finish(pg._mpi().alltoall(outs, ins), async_op)


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Any:
    """Waits until every rank of the group has reached this call.

    Args:
        group (ProcessGroup, optional): the group to work in (the default group if None).
        async_op (bool): return a ``Work`` handle to wait on instead of waiting here.
        device_ids: accepted for compatibility.

    Returns:
        A ``Work`` handle with ``async_op``, else None.
    """
    pg = _member(group)
    if pg is None:
        return None
    check_collective(pg, "BARRIER", [])
    return _finish(pg._mpi().barrier(), async_op)


def _peer(pg: ProcessGroup, glob: int | None, local: int | None, fn: str, what: str) -> int:
    if glob is None and local is None:
        raise ValueError(f"{fn}: {what} or group_{what} must be given")
    return _root(pg, glob, local, fn, what)


def isend(tensor: Any, dst: int | None = None, group: Any = None, tag: int = 0,
          group_dst: int | None = None) -> Work | None:
    """Starts sending ``tensor`` to rank ``dst`` and returns at once.

    Args:
        tensor (Tensor): the data (not to be modified until the send completes).
        dst (int): the global rank that receives.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        tag (int): matches this send with a receive of the same tag.
        group_dst (int, optional): ``dst`` as a rank within ``group`` (give one of the two).

    Returns:
        A ``Work`` handle to wait on.
    """
    _tensor(tensor, "isend")
    pg = _member(group)
    if pg is None:
        return None
    peer = _peer(pg, dst, group_dst, "isend", "dst")
    if peer == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as "
                         "the rank of the current process.")
    return pg._mpi().send(tensor, peer, tag)


def irecv(tensor: Any, src: int | None = None, group: Any = None, tag: int = 0,
          group_src: int | None = None) -> Work | None:
    """Starts receiving into ``tensor`` from rank ``src`` (any rank if None) and returns at once.

    Args:
        tensor (Tensor): the buffer to fill.
        src (int, optional): the global rank that sends.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        tag (int): matches this receive with a send of the same tag.
        group_src (int, optional): ``src`` as a rank within ``group`` (give one of the two).

    Returns:
        A ``Work`` handle to wait on.
    """
    _tensor(tensor, "irecv")
    pg = _member(group)
    if pg is None:
        return None
    peer = None if src is None and group_src is None else _root(pg, src, group_src, "irecv", "src")
    return pg._mpi().recv(tensor, peer, tag)


def send(tensor: Any, dst: int | None = None, group: Any = None, tag: int = 0,
         group_dst: int | None = None) -> None:
    """Sends ``tensor`` to rank ``dst`` (blocks until it is sent).

    Args:
        tensor (Tensor): the data.
        dst (int): the global rank that receives.
        group (ProcessGroup, optional): the group to work in (the default group if None).
        tag (int): matches this send with a ``recv`` of the same tag.
        group_dst (int, optional): ``dst`` as a rank within ``group`` (give one of the two).
    """
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor: Any, src: int | None = None, group: Any = None, tag: int = 0,
         group_src: int | None = None) -> int:
    """Receive into ``tensor``; returns the sender's global rank (-1 for a non-member)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    pg = resolve(group)
    return pg._ranks[work.source_rank()]


class P2POp:
    """One send or receive of ``batch_isend_irecv``."""

    def __init__(self, op: Any, tensor: Any, peer: int | None = None, group: Any = None,
                 tag: int = 0, group_peer: int | None = None) -> None:
        if op not in (isend, irecv, send, recv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed."
                             "isend`` or ``torch.distributed.irecv``.")
        self.op = isend if op in (isend, send) else irecv
        self.tensor, self.peer, self.group, self.tag, self.group_peer = tensor, peer, group, tag, group_peer


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[Work]:
    """Starts every send and receive of ``p2p_op_list`` (``P2POp`` objects) together, which avoids
    the deadlocks of issuing them one by one.

    Args:
        p2p_op_list (list of P2POp): the operations.

    Returns:
        One ``Work`` handle per operation.
    """
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            w = isend(p.tensor, p.peer, p.group, p.tag, p.group_peer)
        else:
            w = irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer)
        if w is not None:
            works.append(w)
    return works
