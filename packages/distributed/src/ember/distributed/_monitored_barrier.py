"""``monitored_barrier``: a barrier that names the ranks that did not reach it.

As gloo does it: every other rank sends a token to group rank 0 and waits for its reply; rank 0
waits for each token with the timeout, then answers them all. The tokens travel on the group's
own communicator under a tag user code is unlikely to use (MPI guarantees tags up to 32767), so
a monitored barrier never matches a user's send/recv.
"""

from __future__ import annotations

import os
import time
import warnings
from datetime import timedelta
from typing import Any

import ember

from .process_group import Backend, GroupMember, get_backend, resolve

_TO_ROOT, _FROM_ROOT = 32_511, 32_512


def monitored_barrier(group: Any = GroupMember.WORLD, timeout: Any = None,
                      wait_all_ranks: bool = False) -> None:
    """A barrier with a timeout that reports the ranks that did not reach it.

    Rank 0 of the group waits up to ``timeout`` for every other rank and raises a
    ``RuntimeError`` naming the first missing rank ("[Rank 0]: Rank 1 failed to pass
    monitoredBarrier in 1000 ms"), or every missing rank with ``wait_all_ranks=True``. The
    other ranks wait for rank 0's go-ahead (the group's timeout).

    Args:
        group (ProcessGroup, optional): the group (the default group if None).
        timeout (datetime.timedelta, optional): how long rank 0 waits for each rank (the group's timeout
            if None; a float is read as seconds, with a warning, as PyTorch does).
        wait_all_ranks (bool): collect every missing rank instead of failing on the first.
    """
    if group == GroupMember.NON_GROUP_MEMBER:
        warnings.warn("Running monitored_barrier on global rank "
                      f"{_global_rank()} which does not belong to the given group.", stacklevel=2)
        return
    if get_backend(group) not in (Backend.GLOO, Backend.MPI):
        raise ValueError("monitored_barrier is only implemented for GLOO backend.")
    pg = resolve(group)
    if timeout is None:
        timeout = pg._timeout
    elif isinstance(timeout, float):
        warnings.warn("Please specify timeout arg as a timedelta. Converting current value of "
                      f"{timeout} assuming it represents seconds", stacklevel=2)
        timeout = timedelta(seconds=timeout)
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got "
                        f"{type(timeout)}")
    comm = pg._mpi().comm
    me, n = comm.Get_rank(), comm.Get_size()
    limit_ms = int(timeout.total_seconds() * 1000)
    token = ember.zeros(1, dtype=ember.uint8)
    if me != 0:
        _finish(comm.Isend(_buf(token), 0, _TO_ROOT), pg._timeout.total_seconds(), me)
        _finish(comm.Irecv(_buf(token), 0, _FROM_ROOT), pg._timeout.total_seconds(), me)
        return
    failed = []
    for r in range(1, n):
        req = comm.Irecv(_buf(ember.zeros(1, dtype=ember.uint8)), r, _TO_ROOT)
        if not _wait(req, timeout.total_seconds()):
            req.Cancel()
            req.Wait()
            msg = f"[Rank 0]: Rank {r} failed to pass monitoredBarrier in {limit_ms} ms"
            if not wait_all_ranks:
                raise RuntimeError(f"{msg}\n Original exception: \nTimed out waiting "
                                   f"{limit_ms}ms for recv operation to complete")
            failed.append(r)
    if failed:
        raise RuntimeError(f"[Rank 0]: Ranks {', '.join(map(str, failed))} failed to pass "
                           f"monitoredBarrier in {limit_ms} ms")
    for r in range(1, n):
        comm.Isend(_buf(token), r, _FROM_ROOT).Wait()


def _buf(t: Any) -> Any:
    from ._mpi_boot import mpi

    return mpi().buffer.fromaddress(t.data_ptr(), 1)


def _wait(req: Any, seconds: float) -> bool:
    """Polls ``req`` until done (True) or ``seconds`` pass (False); MPICH progresses in Test."""
    deadline = time.monotonic() + seconds
    spins = 0
    while not req.Test():
        spins += 1
        if time.monotonic() > deadline:
            return False
        if spins > 256:
            os.sched_yield()
    return True


def _finish(req: Any, seconds: float, me: int) -> None:
    if not _wait(req, seconds):
        req.Cancel()
        req.Wait()
        raise RuntimeError(f"Rank {me} successfully reached monitoredBarrier, but received "
                           "errors while waiting for send/recv from rank 0. Please check rank 0 "
                           "logs for faulty rank.")


def _global_rank() -> int:
    from .process_group import get_rank

    return get_rank()
