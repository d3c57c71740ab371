"""The multi-process DataLoader iterator (``num_workers > 0``).

Each worker has one ``ember.multiprocessing`` channel to the main process. The main
process sends ``(task, index)`` round-robin, keeping at most ``prefetch_factor *
num_workers`` tasks outstanding, and waits on the channels *and* the workers' process
sentinels at once: a batch is read as soon as it arrives and a dead worker is noticed at
once, without polling. Batches are reordered by task number unless ``in_order=False``.

Shutdown (end of epoch, ``del``, garbage collection, interpreter exit) sends each worker
``None``, closes the channels (a worker blocked on a send then fails and exits), joins
the workers briefly, and terminates what is left. Shared memory needs no cleanup:
segments have no names and vanish with the last process that maps them.
"""

from __future__ import annotations

import atexit
import importlib.util
import itertools
import multiprocessing
import multiprocessing.connection
import sys
import time
import weakref
from typing import Any

from ember.utils.data import _pin_memory
from ember.utils.data._worker import (
    PARENT_CHANNELS,
    ExceptionWrapper,
    IterableDatasetStopIteration,
    ResumeIteration,
    worker_loop,
)
from ember.utils.data.dataloader import _BaseDataLoaderIter, _DatasetKind

_JOIN_GRACE_S = 2.0  # how long exiting workers get before they are terminated
_live_iterators: weakref.WeakSet[_MultiProcessingDataLoaderIter] = weakref.WeakSet()
_python_exiting = False


@atexit.register
def _shutdown_all() -> None:
    # Runs before multiprocessing's own exit handler (registered earlier, so called
    # later), which would otherwise terminate our workers without a word.
    global _python_exiting
    for it in list(_live_iterators):
        it._shutdown_workers()
    _python_exiting = True


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Loads in ``num_workers`` worker processes."""

    def __init__(self, loader: Any) -> None:
        super().__init__(loader)
        import ember.multiprocessing  # noqa: F401  (tensor reductions for spawn/forkserver)
        from ember.multiprocessing._channel import Channel

        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        context = loader.multiprocessing_context or multiprocessing.get_context()
        if context.get_start_method() == "fork":
            _preload_numpy_random()
        self._shutdown = False
        self._channels: list[Any] = []
        self._workers: list[Any] = []
        self._workers_status = [True] * self._num_workers
        iterable = self._dataset_kind == _DatasetKind.Iterable
        try:
            for i in range(self._num_workers):
                main_end, worker_end = Channel.pair()
                PARENT_CHANNELS.add(main_end)
                self._channels.append(main_end)
                w = context.Process(
                    target=worker_loop,
                    args=(iterable, self._dataset, worker_end, self._auto_collation, self._collate_fn,
                          self._drop_last, self._base_seed, loader.worker_init_fn, i, self._num_workers),
                    daemon=True)
                try:
                    w.start()
                finally:
                    worker_end.close()  # the worker has its own copy now
                self._workers.append(w)
        except BaseException:
            self._shutdown_workers()
            raise
        _live_iterators.add(self)
        self._reset(loader, first_iter=True)

    # ------------------------------------------------------------- epochs
    def _reset(self, loader: Any, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0  # next task to send
        self._rcvd_idx = 0  # next task to yield (in order)
        self._task_info: dict[int, tuple[Any, ...]] = {}  # task -> (worker,) or (worker, data)
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # Persistent workers: start a new epoch; drop what the last one left in flight.
            marker = ResumeIteration()
            for ch in self._channels:
                ch.send(marker, block=False)
            pending = self._num_workers
            while pending > 0:
                task, data = self._get_data()
                if isinstance(task, ResumeIteration):
                    if isinstance(data, ExceptionWrapper):
                        data.reraise()
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    # ------------------------------------------------------------- receiving
    def _worker_died(self, *worker_ids: int) -> RuntimeError:
        """The error for workers whose channel broke or whose sentinel fired. Their fds
        close a moment before the kernel lets us reap them, so wait for that first."""
        for i in worker_ids:
            self._workers[i].join(timeout=_JOIN_GRACE_S)
        dead = [i for i in range(self._num_workers) if self._workers_status[i] and not self._workers[i].is_alive()]
        dead = dead or list(worker_ids)  # closed its channel, yet still running: as good as dead
        for i in dead:
            self._workers_status[i] = False
        pids = ", ".join(str(self._workers[i].pid) for i in dead)
        codes = ", ".join(_describe_exit(self._workers[i].exitcode) for i in dead)
        return RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly ({codes})")

    def _get_data(self) -> tuple[Any, Any]:
        """The next message from any worker; raises if a worker died or on timeout."""
        from ember.multiprocessing._channel import ChannelClosed

        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            active = [i for i in range(self._num_workers) if self._workers_status[i]]
            waitables = [self._channels[i] for i in active] + [self._workers[i].sentinel for i in active]
            if not waitables:
                raise RuntimeError("DataLoader has no active worker left to wait for")
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = multiprocessing.connection.wait(waitables, remaining)
            channels = [obj for obj in ready if not isinstance(obj, int)]
            if channels:
                try:
                    return channels[0].recv(keep_fds=False)  # batches hold no fds
                except ChannelClosed:
                    raise self._worker_died(self._channels.index(channels[0])) from None
            if ready:  # only sentinels: a worker exited with nothing left to read
                raise self._worker_died(*(i for i in active if self._workers[i].sentinel in ready))
            if deadline is not None and time.monotonic() >= deadline:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _next_data(self) -> Any:
        while True:
            # Skip tasks whose worker can no longer answer (an exhausted iterable copy).
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

            if self._shutdown or self._tasks_outstanding <= 0:
                raise AssertionError("DataLoader iterator used after its workers were shut down")
            idx, data = self._get_data()
            if isinstance(idx, ResumeIteration):
                continue  # a stray echo of a persistent-worker reset
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable and isinstance(data, IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)  # early: keep it until its turn
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _process_data(self, data: Any, worker_id: int) -> Any:
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        if self._pin_memory:
            data = _pin_memory.pin_memory(data)
        return data

    # --------------------------------------------------------------- sending
    def _try_put_index(self) -> None:
        from ember.multiprocessing._channel import ChannelClosed

        max_tasks = self._prefetch_factor * self._num_workers
        if self._tasks_outstanding >= max_tasks:
            raise AssertionError("DataLoader has more outstanding tasks than prefetch_factor * num_workers")
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next active worker, round-robin
            worker = next(self._worker_cycle)
            if self._workers_status[worker]:
                if self._in_order:
                    break
                # Out of order: do not pile tasks onto a slow worker.
                if self._workers_num_tasks[worker] < max_tasks // sum(self._workers_status):
                    break
        else:
            return
        try:
            self._channels[worker].send((self._send_idx, index), block=False)
        except ChannelClosed:
            raise self._worker_died(worker) from None
        self._task_info[self._send_idx] = (worker,)
        self._workers_num_tasks[worker] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    # -------------------------------------------------------------- shutdown
    def _mark_worker_as_unavailable(self, worker_id: int, shutdown: bool = False) -> None:
        from ember.multiprocessing._channel import ChannelClosed

        try:
            self._channels[worker_id].send(None, block=False)  # tells the worker to exit
        except (ChannelClosed, OSError):
            pass
        self._workers_status[worker_id] = False

    def _shutdown_workers(self) -> None:
        if self._shutdown or _python_exiting:
            return
        self._shutdown = True
        try:
            for i in range(len(self._channels)):
                if i < len(self._workers) and (self._persistent_workers or self._workers_status[i]):
                    self._mark_worker_as_unavailable(i, shutdown=True)
            for ch in self._channels:
                ch.close()
            deadline = time.monotonic() + _JOIN_GRACE_S
            for w in self._workers:
                w.join(timeout=max(0.0, deadline - time.monotonic()))
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_JOIN_GRACE_S)
                if w.is_alive():
                    w.kill()
                    w.join()
            self._task_info = {}
            _live_iterators.discard(self)

    def __del__(self) -> None:
        try:
            self._shutdown_workers()
        except Exception:  # noqa: BLE001 - never raise from a finaliser
            pass


def _preload_numpy_random() -> None:
    # Workers seed numpy.random, which NumPy imports lazily: importing it once here saves
    # every forked worker of every epoch that import (10-100 ms before its first batch).
    if "numpy.random" not in sys.modules and importlib.util.find_spec("numpy") is not None:
        import numpy.random  # noqa: F401


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        import signal

        try:
            return f"killed by signal: {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"

