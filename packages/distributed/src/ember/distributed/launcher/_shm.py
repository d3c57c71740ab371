"""Finds the MPICH shared-memory files of our own workers, to remove what a killed job leaves.

MPICH maps a ``/dev/shm/mpich_shm_*`` segment in every rank of a node and unlinks it at a clean
finalize; a rank killed or aborted leaves it behind. The name does not say whose it is, so we
learn the names from the live workers' memory maps (every monitor tick, and once more just
before stopping them): only files one of *our* workers mapped are ever removed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

_DIR = "/dev/shm/"
_PREFIXES = ("mpich_shm_", "mpich_", "MPICH_")


def _mapped_shm(pid: int) -> set[str]:
    found: set[str] = set()
    try:
        with open(f"/proc/{pid}/maps") as f:
            for line in f:
                i = line.find(_DIR)
                if i >= 0 and not line.endswith("(deleted)\n"):
                    found.add(line[i:].rstrip("\n"))
    except OSError:
        pass  # already gone
    return found


class ShmTracker:
    """Remembers the MPICH segments our workers mapped; :meth:`cleanup` removes the leftovers."""

    def __init__(self) -> None:
        self.paths: set[str] = set()

    def scan(self, pids: Iterable[int]) -> None:
        for pid in pids:
            for path in _mapped_shm(pid):
                if os.path.basename(path).startswith(_PREFIXES):
                    self.paths.add(path)

    def cleanup(self) -> list[str]:
        """Unlinks the recorded segments that still exist (call once no worker maps them)."""
        removed = []
        for path in sorted(self.paths):
            try:
                os.unlink(path)
                removed.append(path)
            except FileNotFoundError:
                pass  # MPICH removed it at a clean finalize
            except OSError:
                pass
        self.paths.clear()
        return removed
