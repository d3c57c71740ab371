"""ember.multiprocessing: the standard ``multiprocessing`` module, plus tensor sharing.

Everything in :mod:`multiprocessing` is re-exported. Importing this module registers
pickling reductions so that a tensor put on a queue, sent through a pipe or passed to a
process started with ``spawn`` or ``forkserver`` moves its storage into shared memory
and only a handle travels (see :func:`set_sharing_strategy`); the receiving process maps
the same memory, so writes on either side are seen by both.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing import *  # noqa: F403  (drop-in for the standard module)

from ember.multiprocessing._shared_memory import (
    get_all_sharing_strategies,
    get_sharing_strategy,
    set_sharing_strategy,
)
from ember.multiprocessing.reductions import init_reductions
from ember.multiprocessing.spawn import (
    ProcessContext,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = [
    "set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
    "spawn", "start_processes", "ProcessContext", "SpawnContext",
    "ProcessRaisedException", "ProcessExitedException",
]
__all__ += multiprocessing.__all__  # type: ignore[attr-defined]

init_reductions()
