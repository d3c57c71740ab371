"""``spawn`` / ``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes and turn
the first failure into an exception in the parent (the others are then stopped)."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException",
           "SpawnContext", "spawn", "start_processes"]


class ProcessException(Exception):
    """A process started by ``spawn`` failed; ``error_index`` is its index, ``pid`` its pid."""

    def __init__(self, msg: str, error_index: int, error_pid: int) -> None:
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = error_pid

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """The process's function raised; the message holds the child's traceback."""


class ProcessExitedException(ProcessException):
    """The process died from a signal or exited with a non-zero code."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: str | None = None) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn: Callable[..., Any], i: int, args: tuple[Any, ...], errors: Any) -> None:
    # Runs in the child: report a traceback through the pipe, then exit non-zero.
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is being interrupted too; it reports that itself
    except Exception:
        errors.send(traceback.format_exc())
        errors.close()
        sys.exit(1)


class ProcessContext:
    """The processes started by ``start_processes(..., join=False)``."""

    def __init__(self, processes: list[Any], error_pipes: list[Any]) -> None:
        self.processes = processes
        self.error_pipes = error_pipes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}
        self._unread: list[Any] = list(error_pipes)
        self._traces: list[str | None] = [None] * len(processes)

    def _take_trace(self, index: int) -> None:
        pipe = self._unread[index]
        self._unread[index] = None
        try:
            self._traces[index] = pipe.recv()
        except (EOFError, OSError):
            pass
        pipe.close()

    def pids(self) -> list[int]:
        return [int(p.pid) for p in self.processes]

    def _join_all(self, timeout: float) -> None:
        import time

        end = time.monotonic() + timeout
        for p in self.processes:
            p.join(max(0.0, end - time.monotonic()))

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait for the processes; True once all have exited cleanly, False on timeout.

        When one fails, the others get ``grace_period`` seconds to finish, then SIGTERM,
        then SIGKILL, and the failure is raised (``ProcessRaisedException`` with the
        child's traceback, or ``ProcessExitedException``)."""
        if not self.sentinels:
            return True
        # Read tracebacks as they come: a child blocked writing a long one to a full pipe
        # would otherwise never exit.
        waiting = list(self.sentinels) + [p for p in self._unread if p is not None]
        ready = multiprocessing.connection.wait(waiting, timeout=timeout)
        for obj in ready:
            if obj in self._unread:
                self._take_trace(self._unread.index(obj))
        failed = None
        for sentinel in ready:
            if sentinel not in self.sentinels:
                continue
            index = self.sentinels.pop(sentinel)
            proc = self.processes[index]
            proc.join()
            if proc.exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                p.kill()
            p.join()
        proc = self.processes[failed]
        if self._unread[failed] is not None:
            self._take_trace(failed)
        trace = self._traces[failed]
        if trace is None:
            code = proc.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(f"process {failed:d} terminated with signal {name}",
                                             failed, proc.pid, code, name)
            raise ProcessExitedException(f"process {failed:d} terminated with exit code {code:d}",
                                         failed, proc.pid, code)
        msg = f"\n\n-- Process {failed:d} terminated with the following error:\n{trace}"
        raise ProcessRaisedException(msg, failed, proc.pid)


class SpawnContext(ProcessContext):
    """Former name of :class:`ProcessContext`."""

    def __init__(self, processes: list[Any], error_pipes: list[Any]) -> None:
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_pipes)


def start_processes(fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True,
                    daemon: bool = False, start_method: str = "spawn") -> ProcessContext | None:
    """Start ``nprocs`` processes running ``fn(i, *args)`` with any start method."""
    ctx = multiprocessing.get_context(start_method)
    processes, pipes = [], []
    for i in range(nprocs):
        reader, writer = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_wrap, args=(fn, i, args, writer), daemon=daemon)
        p.start()
        writer.close()
        processes.append(p)
        pipes.append(reader)
    context = ProcessContext(processes, pipes)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True,
          daemon: bool = False, start_method: str = "spawn") -> ProcessContext | None:
    """Run ``fn(i, *args)`` for ``i`` in ``range(nprocs)``, each in a new process started
    with ``spawn``; with ``join`` wait for all and re-raise the first failure."""
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t ember.multiprocessing.start_processes(...)",
            FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
