"""``split_group``: disjoint subgroups of a parent group in one collective call.

PyTorch splits the backend's communicator (NCCL's ``ncclCommSplit``) and so needs a device bound
to the default group; ember's MPI communicators split natively (``MPI_Comm_split``), so every
CPU group can be split, bound device or not.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from . import _mpi_boot
from ._mpi_backend import MPIGroupComm
from .process_group import ProcessGroup, _as_seconds, _check_backend, _default, _world, resolve


def split_group(parent_pg: Any = None, split_ranks: list | None = None,
                timeout: timedelta | None = None, pg_options: Any = None,
                group_desc: str | None = None, backend: Any = None) -> ProcessGroup | None:
    """Splits ``parent_pg`` into the disjoint groups of ``split_ranks`` (ranks *within the
    parent*); every rank of the parent calls it with the same ``split_ranks``.

    Args:
        parent_pg (ProcessGroup, optional): the group to split (the default group if None).
        split_ranks (list of list of int): the subgroups, as parent-group ranks; a rank in
            none of them gets None.
        timeout (datetime.timedelta, optional): the new group's timeout (the parent's if None).
        pg_options: accepted for compatibility.
        group_desc (str, optional): a description of the new group.
        backend (str, optional): must name the parent's backend if given.

    Returns:
        This rank's new ProcessGroup, or None if it is in no split.
    """
    if split_ranks is None or len(split_ranks) == 0:
        raise ValueError("split_ranks cannot be None or empty")
    world = _default()
    parent = resolve(parent_pg)
    me = parent.rank()
    if me < 0:
        raise ValueError(f"Global rank {world.rank()} is not part of the parent group {parent}")
    if backend is not None and _check_backend(backend) != parent.name():
        raise ValueError(f"split_group: backend {backend!r} does not match the parent group's "
                         f"backend {parent.name()!r}")
    tmo = _as_seconds(timeout) if timeout is not None else parent._timeout
    mine: list[int] | None = None
    color = None
    for c, ranks in enumerate(split_ranks):
        if len(ranks) == 0:
            raise ValueError("the split group cannot be empty")
        if len(ranks) > world.size():
            raise ValueError("the split group's size should be less or equal to the world_size "
                             "set by init_process_group")
        if len(ranks) != len(set(ranks)):
            raise ValueError("the split group cannot have duplicate ranks")
        ranks = sorted(int(r) for r in ranks)
        if me in ranks and mine is None:
            mine, color = ranks, c
    MPI = _mpi_boot.mpi()
    sub = parent._mpi().comm.Split(MPI.UNDEFINED if color is None else color,
                                   mine.index(me) if mine is not None else 0)
    if mine is None:
        return None
    _world.generation += 1
    pg = ProcessGroup(MPIGroupComm(sub, tmo.total_seconds(), "ProcessGroupMPI"),
                      [parent._ranks[r] for r in mine], parent.name(), tmo,
                      str(_world.generation), group_desc or "")
    pg._backend_arg = parent._backend_arg
    _world.groups.append(pg)
    return pg
