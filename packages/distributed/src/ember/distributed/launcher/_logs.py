"""Where each worker's stdout/stderr go: the console, a log file (``-r``), or both (``-t``).

Log files live in ``<log_dir>/<run_id>_<random>/attempt_<restart>/<local_rank>/``, next to the
worker's ``error.json``, as torchrun lays them out. Tee'd lines are prefixed ``[<role><local
rank>]:`` on the console. Ranks outside ``--local-ranks-filter`` are not shown: their streams
go to the log files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from typing import IO, Any

from .config import LaunchConfig, Std


def _pump(src: IO[bytes], file: IO[bytes], console: IO[str], prefix: str) -> None:
    for line in iter(src.readline, b""):
        file.write(line)
        file.flush()
        console.write(prefix + line.decode(errors="replace"))
        console.flush()
    src.close()
    file.close()


class StreamPlan:
    """The ``Popen`` arguments for one worker's streams, and the threads that tee them."""

    def __init__(self, cfg: LaunchConfig, local_rank: int, rank_dir: str) -> None:
        redirect = Std.for_rank(cfg.redirects, local_rank)
        tee = Std.for_rank(cfg.tee, local_rank)
        if cfg.local_ranks_filter is not None and local_rank not in cfg.local_ranks_filter:
            redirect, tee = Std.ALL, Std.NONE
        self.prefix = f"[{cfg.role}{local_rank}]:"
        self.files: dict[str, Any] = {}
        self.tee: dict[str, IO[bytes]] = {}
        self.kwargs: dict[str, Any] = {}
        for name, flag in (("stdout", Std.OUT), ("stderr", Std.ERR)):
            if tee & flag:
                self.tee[name] = open(os.path.join(rank_dir, f"{name}.log"), "wb")
                self.kwargs[name] = subprocess.PIPE
            elif redirect & flag:
                self.files[name] = open(os.path.join(rank_dir, f"{name}.log"), "wb")
                self.kwargs[name] = self.files[name]
        self.threads: list[threading.Thread] = []

    def started(self, proc: subprocess.Popen) -> None:
        """Starts the tee threads and closes our copies of the redirect files."""
        for f in self.files.values():
            f.close()
        for name, file in self.tee.items():
            console = sys.stdout if name == "stdout" else sys.stderr
            t = threading.Thread(target=_pump, args=(getattr(proc, name), file, console, self.prefix), daemon=True)
            t.start()
            self.threads.append(t)

    def join(self, timeout: float = 2.0) -> None:
        for t in self.threads:
            t.join(timeout)
