"""``Work`` (the handle of an async collective) and the ``Future`` it hands out.

MPICH progresses a nonblocking operation only inside MPI calls, so waiting is a loop of
``Test()`` calls: it gives the deadline (a blocking call never returns when a peer dies) and
the check for peers the rendezvous has seen die.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from ember.futures import Future as _BaseFuture

from ._errors import DistBackendError


class Future(_BaseFuture):
    """ember.futures.Future for a collective: ``done`` and ``wait`` drive its Work's MPI progress
    (MPICH progresses only inside MPI calls, so nothing else would complete it)."""

    def __init__(self, work: Work | None = None) -> None:
        super().__init__()
        self._work = work

    def done(self) -> bool:
        """Whether the result (or an exception) has been set."""
        if not self._done and self._work is not None:
            self._work._poll()
        return self._done

    def wait(self) -> Any:
        """Waits for the result and returns it; raises the exception if one was set."""
        if not self._done and self._work is not None:
            self._work.wait()
        if not self._done:
            raise RuntimeError("Future.wait(): the future was never completed")
        return self.value()

    result = wait

    def _child(self) -> Future:
        return Future(self._work)


_MPI: list[Any] = []  # mpi4py.MPI once MPI is up (the module import is not free per call)


class Work:
    """One collective in flight: MPI requests, then ``finish`` (copy-back, AVG division...)."""

    def __init__(self, requests: list[Any], finish: Callable[[], Any] | None, timeout: float,
                 check_failed: Callable[[], str | None], what: str, result: Any = None,
                 statuses: list[Any] | None = None, keep: tuple = ()) -> None:
        self._requests = [r for r in requests if r is not None]
        self._keep = keep  # MPI holds these buffers by address: alive until completion
        self._statuses = statuses
        if not _MPI and self._requests:
            from mpi4py import MPI

            _MPI.append(MPI)
        self._finish = finish
        self._timeout = timeout
        self._check_failed = check_failed
        self._what = what
        self._result = result
        self._exc: BaseException | None = None
        self._completed = False
        self._future: Future | None = None  # made on demand: most Works are only waited on
        self.source_rank_value = -1
        if not self._requests:
            self._complete()

    def _complete(self) -> None:
        if self._statuses:  # a receive: who sent it (recv from any source)
            self.source_rank_value = self._statuses[0].Get_source()
        try:
            if self._finish is not None:
                out = self._finish()
                if out is not None:
                    self._result = out
        except BaseException as exc:  # noqa: BLE001 - kept for wait()/exception()
            self._exc = exc
        self._completed = True
        self._keep = ()
        if self._future is not None:
            self._settle(self._future)

    def _settle(self, fut: Future) -> None:
        if self._exc is not None:
            fut.set_exception(self._exc)
        else:
            fut.set_result(self._result)

    def _poll(self) -> bool:
        if self._completed:
            return True
        reqs = self._requests
        if (reqs[0].Test(self._statuses[0] if self._statuses else None) if len(reqs) == 1
                else _MPI[0].Request.Testall(reqs, self._statuses)):
            self._complete()
        return self._completed

    def is_completed(self) -> bool:
        """Whether the operation has finished."""
        return self._poll()

    def is_success(self) -> bool:
        """Whether the operation finished without an error."""
        return self._poll() and self._exc is None

    def exception(self) -> BaseException | None:
        """The exception the operation failed with, or None."""
        return self._exc

    def wait(self, timeout: timedelta | float | None = None) -> bool:
        """Block until done; ``DistBackendError`` when the timeout (the group's by default)
        passes or a peer of the job died."""
        limit = self._timeout if timeout is None else (
            timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout))
        if limit <= 0:
            limit = self._timeout
        deadline = time.monotonic() + limit
        spins = 0
        while not self._poll():
            spins += 1
            if spins & 63 == 0:  # the clock and the failure flag are cheap, not free
                failed = self._check_failed()
                if failed is not None:
                    self._fail(DistBackendError(f"{self._what}: {failed}"))
                if time.monotonic() > deadline:
                    self._fail(DistBackendError(
                        f"{self._what}: timed out after {limit:g} s (the operation did not "
                        f"complete on every rank of the group: a rank is missing, stuck or "
                        f"called a different collective)"))
            if spins > 256:  # not done at once: let peers on the same core run (oversubscribed)
                os.sched_yield()
        if self._exc is not None:
            raise self._exc
        return True

    def _fail(self, exc: DistBackendError) -> None:
        from ._mpi_boot import mark_broken

        mark_broken(str(exc))
        raise exc

    def get_future(self) -> Future:
        """A ``Future`` completed (with the output tensors) when the operation is."""
        if self._future is None:
            self._future = Future(self)
            if self._completed:
                self._settle(self._future)
        return self._future

    def result(self) -> Any:
        """The operation's output tensors, waiting for them."""
        self.wait()
        return self._result

    def source_rank(self) -> int:
        """For a receive from any rank, the rank the data came from."""
        return self.source_rank_value

    def synchronize(self) -> None:
        """Waits for the operation, as ``wait`` (kept for compatibility)."""
        self.wait()
