"""A Future whose last steps run when it is waited for, not when its collectives complete.

A multi-step hook (PowerSGD: all-reduce P, then Q from it, then all-reduce Q) cannot issue its
later collectives from a completion callback on MPI: callbacks fire while the reducer polls,
at moments that differ between ranks, and MPI needs every rank to issue collectives on a
communicator in the same order. The reducer waits for the buckets' futures in bucket order on
every rank, so steps deferred to ``wait`` issue their collectives in one order everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..._work import Future, Work


class DeferredFuture(Future):
    """Completed by ``finish()`` on the first ``wait``; ``done`` only keeps ``works`` (the
    collectives already in flight) progressing and reports whether it has been waited for."""

    def __init__(self, works: Sequence[Work | None], finish: Callable[[], Any]) -> None:
        super().__init__(None)
        self._works = [w for w in works if w is not None]
        self._run: Callable[[], None] | None = self._finish_with(finish)

    def _finish_with(self, finish: Callable[[], Any]) -> Callable[[], None]:
        def run() -> None:
            try:
                value = finish()
            except BaseException as exc:  # noqa: BLE001 - handed to the waiters
                self.set_exception(exc)
            else:
                self.set_result(value)

        return run

    def done(self) -> bool:
        if not self._done:
            for w in self._works:
                w.is_completed()
        return self._done

    def wait(self) -> Any:
        if not self._done and self._run is not None:
            run, self._run = self._run, None
            run()
        return super().wait()

    result = wait

    def _child(self) -> Future:
        # a future chained with ``then`` completes when this one does: waiting for it must
        # run this one's deferred steps first
        child = DeferredFuture(self._works, lambda: None)
        child._run = self._wait_quietly
        return child

    def _wait_quietly(self) -> None:
        try:
            self.wait()
        except BaseException:  # noqa: BLE001 - the child gets it through its callback
            pass
