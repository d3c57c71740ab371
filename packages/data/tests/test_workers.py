"""DataLoader with worker processes: results, ordering, seeding, sharding, sharing memory."""

from __future__ import annotations

import multiprocessing
import os
from typing import Any

import ember
import pytest
from ember.utils.data import DataLoader, Sampler, TensorDataset
from ember_data_testlib import (
    EmberOpsDataset,
    InfoDataset,
    InitEnvDataset,
    RangeDataset,
    StreamDataset,
    TensorItems,
    record_worker_id,
)


def flat(batches: Any) -> list[Any]:
    return [b.tolist() if hasattr(b, "tolist") else b for b in batches]


@pytest.mark.filterwarnings("ignore:This DataLoader will create 3 worker processes")
def test_same_batches_as_single_process() -> None:
    ds = RangeDataset(23)
    expected = flat(DataLoader(ds, batch_size=4))
    assert flat(DataLoader(ds, batch_size=4, num_workers=2)) == expected
    assert flat(DataLoader(ds, batch_size=4, num_workers=3, prefetch_factor=1)) == expected


def test_batches_match_torch_with_workers() -> None:
    torch = pytest.importorskip("torch")
    for kwargs in (dict(batch_size=5, drop_last=True), dict(batch_size=None), dict(batch_size=3)):
        ours = flat(DataLoader(RangeDataset(17), num_workers=2, **kwargs))
        theirs = flat(torch.utils.data.DataLoader(RangeDataset(17), num_workers=2, **kwargs))
        assert ours == theirs


def test_tensor_batches_come_through_shared_memory() -> None:
    x = ember.arange(2_000_000, dtype=ember.float32).reshape(1000, 2000)  # 8 MB
    y = ember.arange(1000)
    dl = DataLoader(TensorDataset(x, y), batch_size=500, num_workers=2)
    it = iter(dl)
    batches = list(it)
    assert [b[0].shape for b in batches] == [(500, 2000), (500, 2000)]
    assert batches[1][0][0, :3].tolist() == [1_000_000.0, 1_000_001.0, 1_000_002.0]
    assert all(t.is_shared() for b in batches for t in b)
    # Only handles travel through the channels, not the 8 MB of data.
    assert sum(ch.bytes_received for ch in it._channels) < 10_000


def test_kept_batches_hold_no_file_descriptors() -> None:
    from ember_data_testlib import shared_memory_fds

    before = shared_memory_fds()
    batches = list(DataLoader(TensorItems(300, (4,)), batch_size=2, num_workers=2))
    assert len(batches) == 150 and all(b.is_shared() for b in batches)
    assert shared_memory_fds() == before  # mappings only: any number of batches can be kept


def test_batches_can_be_passed_on_to_other_processes() -> None:
    import ember.multiprocessing as emp

    batch = next(iter(DataLoader(TensorItems(4, (3,)), batch_size=2, num_workers=1)))
    ctx = emp.get_context("fork")
    q = ctx.Queue()
    q.put(batch)
    got = q.get(timeout=30)
    assert got.tolist() == batch.tolist() and got.is_shared()


def test_collated_items_are_shared_too() -> None:
    batches = list(DataLoader(TensorItems(6, (2, 2)), batch_size=3, num_workers=2))
    assert [b.shape for b in batches] == [(3, 2, 2)] * 2 and all(b.is_shared() for b in batches)
    assert batches[1][:, 0, 0].tolist() == [3.0, 4.0, 5.0]


def test_in_order_false_yields_every_batch() -> None:
    out = flat(DataLoader(RangeDataset(20), batch_size=3, num_workers=2, in_order=False))
    assert sorted(x for b in out for x in b) == list(range(20))


def test_worker_info_seeds_and_threads() -> None:
    dl = DataLoader(InfoDataset(8), batch_size=None, num_workers=2, generator=ember.Generator().manual_seed(3))
    rows = list(dl)
    assert [r[0] for r in rows] == list(range(8))
    by_worker: dict[int, list[Any]] = {}
    for _i, wid, seed, initial, py, npy, threads, pid in rows:
        by_worker.setdefault(wid, []).append((seed, initial, py, npy, threads, pid))
    assert sorted(by_worker) == [0, 1]  # round-robin over both workers
    seeds = {w: v[0][0] for w, v in by_worker.items()}
    assert seeds[1] == seeds[0] + 1  # base_seed + worker id
    for vals in by_worker.values():
        assert all(v[0] == v[1] for v in vals)  # info.seed == ember.initial_seed()
        assert all(v[4] == 1 for v in vals)  # workers run ember with one thread
        assert len({v[5] for v in vals}) == 1 and vals[0][5] != os.getpid()
    # `random` and NumPy streams differ between workers.
    assert by_worker[0][0][2] != by_worker[1][0][2] and by_worker[0][0][3] != by_worker[1][0][3]
    # Same generator seed -> same worker seeds and streams; the next epoch gets new ones.
    again = list(DataLoader(InfoDataset(8), batch_size=None, num_workers=2, generator=ember.Generator().manual_seed(3)))
    assert [r[2:6] for r in again] == [r[2:6] for r in rows]
    epoch2 = list(dl)
    assert epoch2[0][2] != rows[0][2]


def test_worker_seed_follows_torch_rule() -> None:
    gen = ember.Generator().manual_seed(5)
    state = gen.get_state()
    base = int(ember.empty((), dtype=ember.int64).random_(generator=gen).item())
    gen.set_state(state)
    rows = list(DataLoader(InfoDataset(2), batch_size=None, num_workers=2, generator=gen))
    assert [r[2] for r in rows] == [base, base + 1]
    import random

    import numpy as np

    random.seed(base + 1)
    np.random.seed(np.random.SeedSequence([1, base]).generate_state(4))
    assert rows[1][4] == random.random() and rows[1][5] == float(np.random.rand())


def test_worker_init_fn_runs_in_each_worker() -> None:
    out = list(DataLoader(InitEnvDataset(), batch_size=None, num_workers=2, worker_init_fn=record_worker_id))
    assert out == ["0", "1", "0", "1"]
    assert "EMBER_TEST_WORKER_INIT" not in os.environ


def test_iterable_dataset_is_replicated_unless_sharded() -> None:
    dup = flat(DataLoader(StreamDataset(0, 4, shard=False), batch_size=None, num_workers=2))
    assert sorted(dup) == [0, 0, 1, 1, 2, 2, 3, 3]
    sharded = flat(DataLoader(StreamDataset(0, 10), batch_size=None, num_workers=2))
    assert sorted(sharded) == list(range(10))


def test_iterable_dataset_batches_per_worker() -> None:
    # Each worker batches its own shard (0..4 and 5..9): partial batches per worker.
    out = flat(DataLoader(StreamDataset(0, 10), batch_size=3, num_workers=2))
    assert sorted(map(tuple, out)) == [(0, 1, 2), (3, 4), (5, 6, 7), (8, 9)]
    dropped = flat(DataLoader(StreamDataset(0, 10), batch_size=3, num_workers=2, drop_last=True))
    assert sorted(map(tuple, dropped)) == [(0, 1, 2), (5, 6, 7)]


def test_iterable_sharding_matches_torch() -> None:
    torch = pytest.importorskip("torch")

    class TorchStream(torch.utils.data.IterableDataset):
        def __iter__(self) -> Any:
            info = torch.utils.data.get_worker_info()
            return iter(range(info.id * 5, info.id * 5 + 5))

    class OurStream(StreamDataset):
        pass

    theirs = flat(torch.utils.data.DataLoader(TorchStream(), batch_size=3, num_workers=2))
    ours = flat(DataLoader(OurStream(0, 10), batch_size=3, num_workers=2))
    assert ours == theirs


def test_persistent_workers_keep_their_processes() -> None:
    dl = DataLoader(InfoDataset(4), batch_size=None, num_workers=2, persistent_workers=True)
    first = list(dl)
    second = list(dl)
    assert [r[0] for r in second] == [0, 1, 2, 3]
    assert {r[7] for r in first} == {r[7] for r in second}
    it = dl._iterator
    assert all(w.is_alive() for w in it._workers)
    # An epoch abandoned half-way does not leak into the next one.
    partial = iter(dl)
    next(partial)
    assert [r[0] for r in dl] == [0, 1, 2, 3]
    workers = it._workers
    del dl, it, partial
    import gc

    gc.collect()
    for w in workers:
        w.join(timeout=5)
        assert not w.is_alive()


def test_persistent_workers_restart_iterable_datasets() -> None:
    dl = DataLoader(StreamDataset(0, 6), batch_size=2, num_workers=2, persistent_workers=True)
    assert sorted(map(tuple, flat(dl))) == sorted(map(tuple, flat(dl))) == [(0, 1), (2,), (3, 4), (5,)]


class CountingSampler(Sampler[int]):
    def __init__(self, n: int) -> None:
        self.n, self.drawn = n, 0

    def __iter__(self) -> Any:
        for i in range(self.n):
            self.drawn += 1
            yield i

    def __len__(self) -> int:
        return self.n


def test_prefetch_is_bounded() -> None:
    sampler = CountingSampler(100)
    it = iter(DataLoader(RangeDataset(100), batch_size=None, sampler=sampler, num_workers=2, prefetch_factor=3))
    assert sampler.drawn == 3 * 2
    next(it)
    assert sampler.drawn == 3 * 2 + 1  # one more task per batch taken


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_other_start_methods(method: str) -> None:
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"{method} is not available here")
    x = ember.arange(12.0).reshape(6, 2)
    dl = DataLoader(TensorDataset(x), batch_size=4, num_workers=1, multiprocessing_context=method)
    assert flat(b[0] for b in dl) == [[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]], [[8.0, 9.0], [10.0, 11.0]]]


def test_spawn_needs_picklable_arguments() -> None:
    dl = DataLoader(RangeDataset(4), num_workers=1, multiprocessing_context="spawn", collate_fn=lambda b: b)
    with pytest.raises((AttributeError, TypeError, Exception)) as e:
        list(dl)
    assert "pickle" in str(e.value).lower() or "lambda" in str(e.value).lower()


def test_default_start_method_is_the_platform_default() -> None:
    dl = DataLoader(RangeDataset(2), num_workers=1)
    assert dl.multiprocessing_context is None
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    dl2 = DataLoader(RangeDataset(2), num_workers=1, multiprocessing_context=ctx)
    assert dl2.multiprocessing_context is ctx and flat(dl2) == [[0], [1]]


def test_workers_forked_from_a_multithreaded_parent() -> None:
    # The parent's OpenMP/BLAS pools are running; forked workers must not hang on them.
    threads = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        a = ember.randn(1024, 1024)
        (a + a).sum()
        (a @ a).sum()
        expected = [EmberOpsDataset()[i].tolist() for i in range(4)]
        got = [b.tolist() for b in DataLoader(EmberOpsDataset(), batch_size=None, num_workers=2, timeout=60)]
        assert got == expected
    finally:
        ember.set_num_threads(threads)
