"""Side-by-side sweep of the DataLoader with worker processes (at most two, tiny datasets):
worker seeds (``initial_seed() == base_seed + id``, ``random``, NumPy, ``rand``),
``get_worker_info``, IterableDataset sharding and interleaving, ``worker_init_fn``,
persistent workers, ``in_order=False``, ``timeout``, ``prefetch_factor`` and errors raised
in a worker. Datasets name their library by module name, so that they stay picklable."""

from __future__ import annotations

import gc
import importlib
import os
import random
from collections.abc import Callable
from typing import Any

import ember
import pytest
from ember_data_testlib import RangeDataset, outcome

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")


def lib(name: str) -> Any:
    return importlib.import_module(name)


def draws() -> tuple[Any, ...]:
    """What a worker's RNGs give next: Python, NumPy, and the library's global generator."""
    return random.random(), float(np.random.rand())


class SeedProbe:
    """Item i: (i, worker id, num_workers, info.seed, initial_seed(), the RNG draws, rand(2))."""

    def __init__(self, libname: str, n: int) -> None:
        self.libname, self.n = libname, n

    def __getitem__(self, i: int) -> Any:
        L = lib(self.libname)
        info = L.utils.data.get_worker_info()
        return (i, info.id, info.num_workers, info.seed, L.initial_seed(), draws(), L.rand(2).tolist(),
                info.dataset is not self, type(info.dataset).__name__)

    def __len__(self) -> int:
        return self.n


def make_stream(libname: str, n: int, shard: bool) -> Any:
    """An IterableDataset of the named library: 0..n-1, split between workers when ``shard``
    (worker k takes every num_workers-th item from k on)."""
    base = lib(libname).utils.data.IterableDataset

    class Stream(base):  # type: ignore[misc, valid-type]
        def __iter__(self) -> Any:
            info = lib(libname).utils.data.get_worker_info()
            if info is None or not shard:
                return iter(range(n))
            return iter(range(info.id, n, info.num_workers))

        def __len__(self) -> int:
            return n

        def __repr__(self) -> str:
            return "Stream"

    return Stream()


def record_init(worker_id: int) -> None:
    # The worker_init_fn sees the seeded worker: its id, the info, and the RNG state.
    os.environ["PARITY_INIT"] = str((worker_id, random.random()))


class InitProbe:
    def __getitem__(self, i: int) -> Any:
        return i, os.environ.get("PARITY_INIT", "unset")

    def __len__(self) -> int:
        return 4


def both(fn: Callable[[Any], Any], seed: int = 0) -> tuple[Any, Any]:
    def run(L: Any) -> Any:
        L.manual_seed(seed)
        result = outcome(lambda: fn(L))
        # An iterator left behind by an error sits in a reference cycle with its traceback;
        # collect it now, so that its workers are shut down by this test and not a later one.
        gc.collect()
        return result, L.rand(2).tolist()

    return run(ember), run(torch)


def drain(loader: Any) -> list[Any]:
    """``list(loader)``, except that after an error the epoch is read to its end before the
    first error is raised again: a PyTorch iterator dropped mid-epoch after a worker error
    takes seconds to shut down, one that finished its epoch does not."""
    it, out, errors = iter(loader), [], []
    for _ in range(100):  # bounded, in case every next() keeps failing
        try:
            out.append(next(it))
        except StopIteration:
            break
        except Exception as e:  # noqa: BLE001 - re-raised below
            errors.append(e)
    if errors:
        raise errors[0]
    return out


def gen(L: Any, seed: int | None) -> Any:
    return None if seed is None else L.Generator().manual_seed(seed)


@pytest.mark.parametrize("seed", [None, 8])
@pytest.mark.parametrize("batch_size", [None, 2])
def test_worker_seeds_and_info(seed: int | None, batch_size: int | None) -> None:
    def fn(L: Any) -> Any:
        dl = L.utils.data.DataLoader(SeedProbe(L.__name__, 5), batch_size=batch_size, num_workers=2,
                                     generator=gen(L, seed))
        return list(dl)

    ours, theirs = both(fn, seed=3)
    assert ours == theirs
    if batch_size is None:
        # initial_seed() inside a worker is info.seed, that is base_seed + worker id.
        rows = [row[1] for row in ours[0][1][1]]
        assert len(rows) == 5 and all(r[4] == r[3] for r in rows)
        assert {r[3] - r[1] for r in rows} == {rows[0][3] - rows[0][1]}


@pytest.mark.parametrize("shard", [True, False])
@pytest.mark.parametrize("kwargs", [dict(batch_size=None), dict(batch_size=2), dict(batch_size=2, drop_last=True),
                                    dict(batch_size=3, num_workers=1)], ids=str)
def test_iterable_dataset_with_workers(shard: bool, kwargs: dict[str, Any]) -> None:
    # Each worker iterates its own copy; batches arrive round-robin, each worker drops its own
    # short batch with drop_last, and len() over-counts when copies are not sharded (warning).
    def fn(L: Any) -> Any:
        options = dict(num_workers=2) | kwargs
        dl = L.utils.data.DataLoader(make_stream(L.__name__, 7, shard), **options)
        return len(dl), list(dl)

    ours, theirs = both(fn)
    assert ours == theirs


def test_worker_init_fn() -> None:
    def fn(L: Any) -> Any:
        return list(L.utils.data.DataLoader(InitProbe(), batch_size=None, num_workers=2, worker_init_fn=record_init,
                                            generator=gen(L, 1)))

    ours, theirs = both(fn)
    assert ours == theirs


def test_persistent_workers_epochs() -> None:
    # The workers (and their RNG streams) live on; no new base seed is drawn per epoch,
    # but the shuffling sampler still draws from the global RNG.
    def fn(L: Any) -> Any:
        dl = L.utils.data.DataLoader(SeedProbe(L.__name__, 4), batch_size=None, num_workers=2, shuffle=True,
                                     persistent_workers=True)
        return [list(dl) for _ in range(3)]

    ours, theirs = both(fn, seed=5)
    assert ours == theirs


def test_persistent_workers_iterable_epochs() -> None:
    def fn(L: Any) -> Any:
        dl = L.utils.data.DataLoader(make_stream(L.__name__, 5, True), batch_size=2, num_workers=2,
                                     persistent_workers=True)
        first = iter(dl)
        partial = next(first)  # an unfinished epoch is abandoned by the next iter()
        return partial, [list(dl) for _ in range(2)]

    ours, theirs = both(fn)
    assert ours == theirs


def test_in_order_false_gives_every_batch() -> None:
    def fn(L: Any) -> Any:
        dl = L.utils.data.DataLoader(RangeDataset(9), batch_size=2, num_workers=2, in_order=False)
        return sorted(b.tolist() for b in dl)

    ours, theirs = both(fn)
    assert ours == theirs


def test_timeout_with_workers() -> None:
    def fn(L: Any) -> Any:
        return list(L.utils.data.DataLoader(RangeDataset(4), batch_size=2, num_workers=2, timeout=30))

    ours, theirs = both(fn)
    assert ours == theirs


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # PyTorch: __del__ after a failed __init__
@pytest.mark.parametrize("prefetch_factor", [1, 3, 0])
def test_prefetch_factor(prefetch_factor: int) -> None:
    # 0 passes the constructor (only negatives fail there) and fails at iter().
    def fn(L: Any) -> Any:
        return list(L.utils.data.DataLoader(RangeDataset(5), batch_size=2, num_workers=2,
                                            prefetch_factor=prefetch_factor))

    ours, theirs = both(fn)
    assert ours == theirs


class Failing:
    def __getitem__(self, i: int) -> int:
        if i == 2:
            raise KeyError("missing")
        if i == 3:
            raise ValueError("bad item 3")
        return i

    def __len__(self) -> int:
        return 4


@pytest.mark.parametrize("sampler", [[0, 1, 2], [3]], ids=str)
def test_worker_errors(sampler: list[int]) -> None:
    # The error is re-raised in the main process with its type; the text starts with
    # "Caught <type> in DataLoader worker process <id>." followed by the worker's traceback.
    def fn(L: Any) -> Any:
        return drain(L.utils.data.DataLoader(Failing(), sampler=sampler, batch_size=None, num_workers=1))

    ours, theirs = both(fn)
    assert ours[0][:2] == theirs[0][:2]
    assert ours[0][2].splitlines()[0] == theirs[0][2].splitlines()[0]
    assert ours[0][2].splitlines()[-1] == theirs[0][2].splitlines()[-1]
    assert ours[1] == theirs[1]


def test_worker_info_object() -> None:
    # A frozen record: the same fields, repr and error on assignment as PyTorch's.
    def fn(L: Any) -> Any:
        info_cls = L.utils.data._utils.worker.WorkerInfo
        info = info_cls(id=1, num_workers=2, seed=5, dataset="ds")
        fields = (info.id, info.num_workers, info.seed, info.dataset, info.rng, info.worker_method)

        def assign() -> None:
            info.id = 3

        return fields, repr(info), outcome(assign), info == info_cls(id=1, num_workers=2, seed=5, dataset="ds")

    assert outcome(lambda: fn(ember)) == outcome(lambda: fn(torch))
    assert ember.utils.data.get_worker_info() is None


def _stack_in_worker(L: Any, case: str) -> Any:
    samples = {
        "int_then_float": [L.tensor([1], dtype=L.int32), L.tensor([2.5], dtype=L.float64)],
        "float_then_int": [L.tensor([2.5], dtype=L.float64), L.tensor([1], dtype=L.int32)],
        "requires_grad": [L.tensor([1.0], requires_grad=True), L.tensor([2.0])],
        "mismatched": [L.ones(2), L.ones(3)],
    }[case]
    return drain(L.utils.data.DataLoader(samples, batch_size=2, num_workers=1))


@pytest.mark.parametrize("case", ["int_then_float", "float_then_int", "requires_grad", "mismatched"])
def test_collate_in_worker(case: str) -> None:
    # A worker stacks into a shared buffer of the first tensor's dtype, so (unlike in the main
    # process) uncastable dtypes and autograd inputs fail, re-raised with the worker's text.
    ours, theirs = both(lambda L: _stack_in_worker(L, case))
    if ours[0][0] == "raise":
        assert ours[0][:2] == theirs[0][:2]
        assert ours[0][2].splitlines()[-1] == theirs[0][2].splitlines()[-1]
    else:
        assert ours == theirs


def _grad_batch(batch: Any) -> Any:
    return batch[0] * 2  # a non-leaf tensor that requires grad: it cannot cross processes


def test_unsendable_batch_is_reported() -> None:
    # PyTorch's queue feeder thread fails and the main process waits forever; ember reports
    # the serialisation error in the main process and the worker lives on.
    dl = ember.utils.data.DataLoader([ember.ones(1, requires_grad=True)] * 4, batch_size=2, num_workers=1,
                                     collate_fn=_grad_batch)
    with pytest.raises(RuntimeError, match="could not send its batch.*non-leaf tensor"):
        drain(dl)


def failing_init(worker_id: int) -> None:
    raise ValueError(f"no init for worker {worker_id}")


def test_worker_init_fn_error() -> None:
    # Raised in the main process when the failed worker's first batch is due.
    def fn(L: Any) -> Any:
        return drain(L.utils.data.DataLoader(RangeDataset(4), num_workers=1, worker_init_fn=failing_init))

    ours, theirs = both(fn)
    assert ours[0][:2] == theirs[0][:2] == ("raise", "ValueError")
    assert ours[0][2].splitlines()[0] == theirs[0][2].splitlines()[0]
    assert ours[0][2].splitlines()[-1] == theirs[0][2].splitlines()[-1]


def test_timeout_expires() -> None:
    from ember_data_testlib import SlowDataset

    def fn(L: Any) -> Any:
        return drain(L.utils.data.DataLoader(SlowDataset(1, 0.4), num_workers=1, timeout=0.1))

    ours, theirs = both(fn)
    assert ours == theirs
