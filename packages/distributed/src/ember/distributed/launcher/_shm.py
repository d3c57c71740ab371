"""Finds the MPICH shared-memory files of our own workers, to remove what a killed job leaves.

MPICH maps a ``/dev/shm/mpich_shm_<id>_<node>`` segment (and ``mpich_vci_<id>_<node>``) in every
rank of a node and unlinks it at a clean finalize; a rank killed or aborted leaves it behind.
``<id>`` is the 32-bit FNV-1a hash of the PMI kvsname (MPICH's ``world_id``), and the agent picks
a fresh random kvsname each round, so those names are ours alone. Segments under other names
(another MPI, a kvsname of the workers' own choosing) are learnt from the live workers' memory
maps, every monitor tick and once more before stopping them. Nothing else is ever removed.
"""

from __future__ import annotations

import glob
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


def mpich_world_id(kvsname: str) -> int:
    """MPICH's ``world_id``: the 32-bit FNV-1a hash of the job's PMI kvsname."""
    h = 0x811C9DC5
    for b in kvsname.encode():
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


class ShmTracker:
    """Remembers the MPICH segments our workers mapped; :meth:`cleanup` removes the leftovers."""

    def __init__(self) -> None:
        self.paths: set[str] = set()
        self._patterns: list[str] = []

    def expect_kvs(self, kvsname: str) -> None:
        """The segments of an MPI job started under ``kvsname`` (one we chose) are ours."""
        wid = mpich_world_id(kvsname)
        self._patterns += [f"{_DIR}mpich_shm_{wid:x}_*", f"{_DIR}mpich_vci_{wid:x}_*"]

    def scan(self, pids: Iterable[int]) -> None:
        for pid in pids:
            for path in _mapped_shm(pid):
                if os.path.basename(path).startswith(_PREFIXES):
                    self.paths.add(path)

    def cleanup(self) -> list[str]:
        """Unlinks the recorded segments that still exist (call once no worker maps them)."""
        removed = []
        for pattern in self._patterns:
            self.paths.update(glob.glob(pattern))
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
