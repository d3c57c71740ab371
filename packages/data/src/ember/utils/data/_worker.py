"""What runs inside a DataLoader worker process, and ``get_worker_info``.

A worker owns one end of an ``ember.multiprocessing`` channel. It receives
``(task, index)`` messages, fetches and collates, and sends ``(task, batch)`` back; tensors
in the batch travel as shared-memory segments. Exceptions travel as
:class:`ExceptionWrapper` and are re-raised by the main process.
"""

from __future__ import annotations

import importlib.util
import random
import signal
import sys
import traceback
import weakref
from dataclasses import dataclass
from typing import Any

__all__ = ["WorkerInfo", "get_worker_info"]


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Describes the worker process this code runs in (see :func:`get_worker_info`).

    Attributes: ``id`` (0 to ``num_workers - 1``), ``num_workers``, ``seed`` (the seed of this
    worker's ember RNG, also ``ember.initial_seed()`` here), ``dataset`` (this worker's copy of
    the dataset), ``rng`` (per-thread RNG state; always None, as ember's workers are
    processes) and ``worker_method`` (``"multiprocessing"``). A frozen dataclass, as in
    PyTorch: assigning a field raises ``dataclasses.FrozenInstanceError``.
    """

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str | None = "multiprocessing"


_worker_info: WorkerInfo | None = None

# The main process's ends of all worker channels. A forked worker inherits copies of
# them; it closes those first, so that its own channel reports EOF when the main process
# goes away (and other loaders' workers are not kept waiting on it).
PARENT_CHANNELS: weakref.WeakSet[Any] = weakref.WeakSet()


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker, its :class:`WorkerInfo`; ``None`` in the main process.

    Use it in an ``IterableDataset.__iter__`` or a ``worker_init_fn`` to give each worker
    its own shard of the data, or to seed other libraries from ``info.seed``.
    """
    return _worker_info


class ExceptionWrapper:
    """An exception caught in a worker, with its formatted traceback; picklable."""

    def __init__(self, exc_info: Any = None, where: str = "in background") -> None:
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type: type[BaseException] = exc_info[0]
        self.exc_name = self.exc_type.__name__  # kept if exc_type must be replaced for pickling
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> None:
        """Raise the exception again here: same type, message naming the worker and
        holding the original traceback (RuntimeError if the type cannot be rebuilt)."""
        msg = f"Caught {self.exc_name} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    # KeyError's str() is the repr of its argument; keep the traceback readable.
    def __repr__(self) -> str:
        return self


@dataclass(frozen=True)
class IterableDatasetStopIteration:
    """Sent by a worker whose IterableDataset copy is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    """Sent to (and echoed by) persistent workers at the start of each new epoch."""


def _seed_worker(base_seed: int, worker_id: int) -> int:
    import ember

    seed = base_seed + worker_id
    random.seed(seed)
    ember.manual_seed(seed)
    if importlib.util.find_spec("numpy") is not None:
        import numpy as np

        # NumPy gets a hash of (worker_id, base_seed) rather than `seed`, so its stream
        # differs from `random`'s, and from another worker's whose base_seed + id is equal.
        np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
    return seed


def _send_result(channel: Any, task: Any, data: Any, worker_id: int) -> None:
    from ember.multiprocessing._channel import ChannelClosed

    try:
        channel.send((task, data))
    except (ChannelClosed, OSError, EOFError):
        raise  # the channel itself broke: the worker loop ends quietly
    except Exception as e:  # noqa: BLE001 - any failure to serialise the batch (a non-leaf tensor
        # that requires grad raises RuntimeError) must reach the main process, not kill the worker.
        if isinstance(data, ExceptionWrapper):  # e.g. an exception class defined in a function
            data.exc_type = RuntimeError
        else:
            try:
                raise RuntimeError(f"DataLoader worker process {worker_id} could not send its batch to "
                                   f"the main process: {type(e).__name__}: {e}") from e
            except RuntimeError:
                data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        channel.send((task, data))


def worker_loop(iterable: bool, dataset: Any, channel: Any, auto_collation: bool, collate_fn: Any,
                drop_last: bool, base_seed: int, init_fn: Any, worker_id: int, num_workers: int) -> None:
    """The body of a worker process (see the module docstring for the protocol)."""
    global _worker_info
    import ember
    from ember.multiprocessing._channel import ChannelClosed
    from ember.utils.data._fetch import create_fetcher

    for ch in list(PARENT_CHANNELS):
        ch.close()
    PARENT_CHANNELS.clear()
    # Ctrl-C reaches the whole process group; the main process decides what happens.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ember.set_num_threads(1)  # num_workers processes already share the cores
    seed = _seed_worker(base_seed, worker_id)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    where = f"in DataLoader worker process {worker_id}"

    init_error = None
    fetcher = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_error = ExceptionWrapper(where=where)

    iteration_end = False
    try:
        while True:
            msg = channel.recv()
            if msg is None:
                break
            if isinstance(msg, ResumeIteration):
                iteration_end = False
                try:
                    fetcher = create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
                    channel.send((msg, None))
                except Exception:
                    channel.send((msg, ExceptionWrapper(where=where)))
                continue
            if iteration_end:
                continue  # the main process skips tasks of an exhausted worker
            task, index = msg
            if init_error is not None:
                data: Any = init_error
                init_error = None
            else:
                try:
                    data = fetcher.fetch(index)  # type: ignore[union-attr]
                except StopIteration:
                    if not iterable:
                        data = ExceptionWrapper(where=where)
                    else:
                        data = IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                except Exception:
                    data = ExceptionWrapper(where=where)
            _send_result(channel, task, data, worker_id)
            del data, index, msg
    except (ChannelClosed, ConnectionError, EOFError):
        pass  # the main process is gone or shut us down: nothing left to do
    except KeyboardInterrupt:
        pass
    finally:
        _worker_info = None
        channel.close()
