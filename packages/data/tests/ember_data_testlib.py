"""Datasets and helpers shared by the DataLoader tests (importable by worker processes)."""

from __future__ import annotations

import collections.abc
import os
import random
import signal
import time
from typing import Any

import ember
from ember.utils.data import Dataset, IterableDataset, get_worker_info


class RangeDataset(Dataset):
    """Item i is i (a map-style dataset with a length)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __getitem__(self, i: int) -> int:
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i

    def __len__(self) -> int:
        return self.n


class InfoDataset(Dataset):
    """Item i: (i, worker id, worker seed, ember.initial_seed(), random.random(),
    numpy random, ember threads, pid)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __getitem__(self, i: int) -> tuple[Any, ...]:
        import numpy as np

        info = get_worker_info()
        wid = -1 if info is None else info.id
        seed = -1 if info is None else info.seed
        initial = ember.initial_seed() if hasattr(ember, "initial_seed") else -1
        return (i, wid, seed, initial, random.random(), float(np.random.rand()), ember.get_num_threads(),
                os.getpid())

    def __len__(self) -> int:
        return self.n


class TensorItems(Dataset):
    """Item i is a float32 tensor of `shape` filled with i."""

    def __init__(self, n: int, shape: tuple[int, ...] = (3,)) -> None:
        self.n, self.shape = n, shape

    def __getitem__(self, i: int) -> Any:
        return ember.full(self.shape, float(i))

    def __len__(self) -> int:
        return self.n


class FailingDataset(Dataset):
    """Raises `exc` for item `bad`."""

    def __init__(self, n: int, bad: int, exc: BaseException) -> None:
        self.n, self.bad, self.exc = n, bad, exc

    def __getitem__(self, i: int) -> int:
        if i == self.bad:
            raise self.exc
        return i

    def __len__(self) -> int:
        return self.n


class SuicideDataset(Dataset):
    """A worker that loads item `bad` kills itself with `sig`."""

    def __init__(self, n: int, bad: int, sig: int = signal.SIGKILL) -> None:
        self.n, self.bad, self.sig = n, bad, sig
        self.owner = os.getpid()

    def __getitem__(self, i: int) -> int:
        if i == self.bad and os.getpid() != self.owner:
            import faulthandler

            faulthandler.disable()  # no crash report from the test runner's handler
            os.kill(os.getpid(), self.sig)
            time.sleep(10)
        return i

    def __len__(self) -> int:
        return self.n


class SlowDataset(Dataset):
    """Sleeps `delay` seconds per item (in worker processes only, of any library)."""

    def __init__(self, n: int, delay: float) -> None:
        self.n, self.delay = n, delay
        self.owner = os.getpid()

    def __getitem__(self, i: int) -> int:
        if os.getpid() != self.owner:
            time.sleep(self.delay)
        return i

    def __len__(self) -> int:
        return self.n


class StreamDataset(IterableDataset):
    """Yields start..end-1; shards between workers when `shard` is set."""

    def __init__(self, start: int, end: int, shard: bool = True) -> None:
        self.start, self.end, self.shard = start, end, shard

    def __iter__(self) -> Any:
        info = get_worker_info()
        if not self.shard or info is None:
            return iter(range(self.start, self.end))
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))

    def __len__(self) -> int:
        return self.end - self.start


class NoLenStream(IterableDataset):
    def __iter__(self) -> Any:
        return iter(range(3))


def record_worker_id(worker_id: int) -> None:
    """A worker_init_fn: stores the id where the dataset can see it."""
    os.environ["EMBER_TEST_WORKER_INIT"] = str(worker_id)


class InitEnvDataset(Dataset):
    def __getitem__(self, i: int) -> str:
        return os.environ.get("EMBER_TEST_WORKER_INIT", "unset")

    def __len__(self) -> int:
        return 4


def failing_init(worker_id: int) -> None:
    raise ValueError(f"init failed in {worker_id}")


def child_pids() -> set[int]:
    """Live (non-zombie) child processes of this process, from /proc."""
    me, out = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z":
            out.add(int(entry))
    return out


def _ancestors(pid: int) -> set[int]:
    out = set()
    while pid > 1 and pid not in out:
        out.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            break
    return out


def shm_entries() -> set[str]:
    """This process tree's ember segments in /dev/shm (`ember_<pid>_<n>`): ones whose creator is
    this process, a live descendant of it, or a process gone by now (a leaked worker's). Other
    programs' entries (an MPI job's, another live ember process's) are not counted."""
    if not os.path.isdir("/dev/shm"):
        return set()
    me, out = os.getpid(), set()
    for name in os.listdir("/dev/shm"):
        parts = name.split("_")
        if len(parts) != 3 or parts[0] != "ember" or not parts[1].isdigit():
            continue
        pid = int(parts[1])
        if not os.path.exists(f"/proc/{pid}") or me in _ancestors(pid):
            out.add(name)
    return out


def shared_memory_fds() -> int:
    """How many of this process's fds are shared-memory segments (memfd or /dev/shm)."""
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if "memfd:ember" in target or target.startswith("/dev/shm/"):
            n += 1
    return n


def wait_until(pred: Any, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


class EmberOpsDataset(Dataset):
    """Items computed with multi-threaded-size ember ops (elementwise and matmul)."""

    def __getitem__(self, i: int) -> Any:
        a = ember.full((512, 512), float(i))
        return ((a + a).sum() + (a @ a)[0, 0]).reshape(1)

    def __len__(self) -> int:
        return 4


# ----------------------------------------------------------------- side-by-side parity helpers
def describe(x: Any) -> Any:
    """A library-neutral description of a value, so ember's and PyTorch's results compare
    with ``==``: tensors become ('tensor', dtype name, shape, values); containers keep their
    type name (a namedtuple or dict subclass that comes back as a plain one must not pass)."""
    if hasattr(x, "dtype") and hasattr(x, "tolist") and type(x).__name__ in ("Tensor", "Parameter"):
        return ("tensor", str(x.dtype).rsplit(".", 1)[-1], tuple(x.shape), x.tolist())
    if type(x).__module__ == "numpy":
        return ("numpy", type(x).__name__, str(getattr(x, "dtype", "")), x.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: describe(v) for k, v in x.items()})
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, tuple(describe(v) for v in x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [describe(v) for v in x])
    if isinstance(x, collections.abc.Mapping):
        return (type(x).__name__, {k: describe(x[k]) for k in x})
    if isinstance(x, collections.abc.Sequence) and not isinstance(x, (str, bytes)):
        return (type(x).__name__, [describe(v) for v in x])
    return x


def outcome(fn: Any) -> Any:
    """What calling ``fn()`` does: ('ok', described result, warning texts) or ('raise',
    exception type name, message). Exceptions must match in type and text, as must warnings
    (recorded in order, each one every time)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn()
        except Exception as e:  # noqa: BLE001 - the exception is the outcome being compared
            return ("raise", type(e).__name__, str(e))
    return ("ok", describe(result), [str(w.message) for w in caught])
