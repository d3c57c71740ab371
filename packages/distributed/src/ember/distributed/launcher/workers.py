"""One node's worker processes: spawn, poll, signal and stop them, leaving nothing behind.

Each worker leads its own process group, so a signal to the group also reaches anything the
worker started (data-loader workers, a shell's children); the kernel keeps a group id from
being reused while any member lives, so a late ``killpg`` cannot hit a stranger. Workers also
get ``PR_SET_PDEATHSIG``: if the agent itself is SIGKILLed, the kernel kills them.
"""

from __future__ import annotations

import ctypes
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field

from ._logs import StreamPlan
from ._shm import ShmTracker

_PR_SET_PDEATHSIG = 1
try:
    _libc: ctypes.CDLL | None = ctypes.CDLL(None, use_errno=True)
except OSError:  # pragma: no cover - not glibc
    _libc = None


def _child_setup(agent_pid: int) -> None:
    # Runs in the forked child before exec: keep this to async-signal-safe calls.
    os.setpgid(0, 0)
    if _libc is not None:
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != agent_pid:  # the agent died before prctl took effect
        os._exit(1)


@dataclass
class Worker:
    local_rank: int
    global_rank: int
    env: dict[str, str]
    error_file: str
    proc: subprocess.Popen | None = None
    streams: StreamPlan | None = None
    exitcode: int | None = None
    exit_time: float = field(default=0.0)


class WorkerGroup:
    """The workers of one restart round on this node."""

    def __init__(self, workers: list[Worker], cmd: list[str]) -> None:
        self.workers = workers
        self.cmd = cmd
        self.shm = ShmTracker()
        self._pidfds: dict[int, int] = {}

    def start(self) -> None:
        agent = os.getpid()
        for w in self.workers:
            assert w.streams is not None
            w.proc = subprocess.Popen(self.cmd, env=w.env, preexec_fn=lambda: _child_setup(agent), **w.streams.kwargs)
            w.streams.started(w.proc)
            try:
                self._pidfds[w.local_rank] = os.pidfd_open(w.proc.pid)
            except (AttributeError, OSError):  # no pidfd (old kernel): poll on a timer
                pass

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self.workers if w.proc is not None and w.exitcode is None]

    def poll(self) -> list[Worker]:
        """Reaps workers that exited since the last call; returns them in exit order."""
        exited = []
        for w in self.workers:
            if w.exitcode is None and w.proc is not None and w.proc.poll() is not None:
                w.exitcode = w.proc.returncode
                w.exit_time = time.time()
                exited.append(w)
        return exited

    def wait(self, timeout: float) -> list[Worker]:
        """Like :meth:`poll`, after waiting up to ``timeout`` for a worker to exit. A pidfd per
        worker wakes us at the exit itself, so when one rank dies and its peers abort in
        reaction, the rank that died first is reported first."""
        if not self._pidfds:
            time.sleep(timeout)
            return self.poll()
        with selectors.DefaultSelector() as sel:
            for w in self.workers:
                if w.exitcode is None and w.local_rank in self._pidfds:
                    sel.register(self._pidfds[w.local_rank], selectors.EVENT_READ, w)
            if not sel.get_map():
                return self.poll()
            ready = [key.data for key, _ in sel.select(timeout)]
        exited = []
        for w in ready:  # the first to exit first; then anything else that exited meanwhile
            if w.exitcode is None and w.proc.poll() is not None:
                w.exitcode, w.exit_time = w.proc.returncode, time.time()
                exited.append(w)
        return exited + self.poll()

    def running(self) -> bool:
        return any(w.exitcode is None for w in self.workers)

    def send(self, sig: int) -> None:
        for w in self.workers:
            if w.proc is not None:
                try:
                    os.killpg(w.proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass

    def stop(self, sig: int = signal.SIGTERM, grace: float = 1.5) -> None:
        """Sends ``sig`` to every worker's group, SIGKILLs what is left after ``grace`` seconds,
        reaps everything and removes the MPICH shared memory our workers mapped."""
        self.shm.scan(self.pids())  # the survivors still map the segment a dead rank made
        if self.running():
            self.send(sig)
            deadline = time.monotonic() + grace
            while self.running() and time.monotonic() < deadline:
                self.poll()
                time.sleep(0.02)
        # Always: also the groups of workers that exited may still hold their children.
        self.send(signal.SIGKILL)
        for w in self.workers:
            if w.proc is not None and w.exitcode is None:
                w.proc.wait()
        self.poll()
        for w in self.workers:
            if w.streams is not None:
                w.streams.join()
        self.shm.cleanup()
        for fd in self._pidfds.values():
            os.close(fd)
        self._pidfds.clear()
