"""``breakpoint``: a pdb session on one rank while the others wait at a barrier."""

from __future__ import annotations

import logging
import sys
import traceback
from datetime import timedelta
from typing import Any

from .collectives import barrier
from .process_group import _world, get_rank

log = logging.getLogger("ember.distributed")
_breakpoint_cache: dict[int, int] = {}


def _make_distributed_pdb() -> Any:
    """A pdb that reads the terminal (/dev/stdin), not the launcher's stdin pipe of a worker."""
    import pdb

    class _DistributedPdb(pdb.Pdb):
        def interaction(self, *args: Any, **kwargs: Any) -> None:
            _stdin = sys.stdin
            try:
                with open("/dev/stdin") as sys.stdin:
                    pdb.Pdb.interaction(self, *args, **kwargs)
            finally:
                sys.stdin = _stdin

    return _DistributedPdb()


def breakpoint(rank: int = 0, skip: int = 0, timeout_s: float | None = 3600) -> None:
    """Stops rank ``rank`` in the debugger; every other rank waits for it at a barrier.

    Args:
        rank (int): the rank that breaks (default 0).
        skip (int): let the first ``skip`` calls from this place pass without breaking.
        timeout_s (float, optional): the groups' timeout while debugging (seconds), so a long
            session does not time the other ranks out; None keeps the timeouts.
    """
    if skip > 0:
        key = hash(str(traceback.format_exc()))
        counter = _breakpoint_cache.get(key, 0) + 1
        _breakpoint_cache[key] = counter
        if counter <= skip:
            log.warning("Skip the breakpoint, counter=%d", counter)
            return
    if timeout_s is not None:
        for pg in _world.groups:
            pg._timeout = timedelta(seconds=timeout_s)
            if pg._comm is not None:
                pg._comm.timeout = float(timeout_s)
    if get_rank() == rank:
        pdb = _make_distributed_pdb()
        pdb.message("\n!!! ATTENTION !!!\n\n"
                    f"Type 'up' to get to the frame that called dist.breakpoint(rank={rank})\n")
        pdb.set_trace()
    barrier()
