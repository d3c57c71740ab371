"""Side-by-side sweep: every sampler, ``random_split`` and ``DataLoader(shuffle=True)`` draw the
same keys as PyTorch from the same seeds, consume the global RNG the same way (so the next
``rand`` agrees too), and reject bad arguments with the same exception type and text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest
from ember_data_testlib import RangeDataset, outcome

torch = pytest.importorskip("torch")


def both(fn: Callable[[Any], Any], seed: int | None = 0) -> tuple[Any, Any]:
    """``fn(ember)`` and ``fn(torch)``, each after seeding its global RNG with ``seed``; the
    outcome also records the next global draws, so a different number of draws shows up."""

    def run(L: Any) -> Any:
        if seed is not None:
            L.manual_seed(seed)
        first = outcome(lambda: fn(L))
        return first, L.rand(3).tolist()

    return run(ember), run(torch)


def gen(L: Any, seed: int | None) -> Any:
    return None if seed is None else L.Generator().manual_seed(seed)


def epochs(sampler: Any, n: int = 3) -> list[list[Any]]:
    return [list(sampler) for _ in range(n)]


# ------------------------------------------------------------------ RandomSampler
RANDOM_KWARGS = [
    dict(), dict(replacement=True), dict(num_samples=7), dict(num_samples=23), dict(num_samples=1),
    dict(replacement=True, num_samples=5), dict(replacement=True, num_samples=70),
    dict(replacement=True, num_samples=64),
]


@pytest.mark.parametrize("seed", [None, 3])
@pytest.mark.parametrize("kwargs", RANDOM_KWARGS, ids=str)
def test_random_sampler(kwargs: dict[str, Any], seed: int | None) -> None:
    # generator=None: each epoch seeds a private generator from one global draw.
    ours, theirs = both(lambda L: epochs(L.utils.data.RandomSampler(RangeDataset(10), generator=gen(L, seed),
                                                                    **kwargs)), seed=11)
    assert ours == theirs


def test_random_sampler_draws_lazily() -> None:
    # The global draw happens on the first next(), not at iter(): interleaved draws see it.
    def fn(L: Any) -> Any:
        it = iter(L.utils.data.RandomSampler(RangeDataset(6)))
        before = L.rand(1).tolist()
        return before, list(it)

    ours, theirs = both(fn)
    assert ours == theirs


@pytest.mark.parametrize("kwargs", [
    dict(replacement=1), dict(replacement="yes"), dict(num_samples=0), dict(num_samples=-3),
    dict(num_samples=2.0), dict(num_samples="4"), dict(num_samples=True), dict(replacement=None),
], ids=str)
def test_random_sampler_errors(kwargs: dict[str, Any]) -> None:
    ours, theirs = both(lambda L: len(L.utils.data.RandomSampler(RangeDataset(4), **kwargs)))
    assert ours == theirs


def test_random_sampler_empty_dataset() -> None:
    ours, theirs = both(lambda L: L.utils.data.RandomSampler(RangeDataset(0)))
    assert ours == theirs


# ------------------------------------------------------------------ WeightedRandomSampler
WEIGHTS = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]


@pytest.mark.parametrize("seed", [None, 5])
@pytest.mark.parametrize("case", [
    (WEIGHTS, 5, True), (WEIGHTS, 5, False), (WEIGHTS, 40, True), (WEIGHTS, 6, False), ([1, 0, 2], 10, True),
    ((0.5, 0.5), 3, True), ("numpy", 4, True),
], ids=str)
def test_weighted_sampler(case: tuple[Any, int, bool], seed: int | None) -> None:
    weights, n, replacement = case
    if weights == "numpy":
        weights = pytest.importorskip("numpy").array(WEIGHTS, dtype="float32")
    ours, theirs = both(lambda L: epochs(L.utils.data.WeightedRandomSampler(weights, n, replacement,
                                                                            generator=gen(L, seed))))
    assert ours == theirs


def test_weighted_sampler_tensor_weights() -> None:
    def fn(L: Any) -> Any:
        s = L.utils.data.WeightedRandomSampler(L.tensor(WEIGHTS, dtype=L.float32), 8)
        return s.weights, list(s), len(s)

    ours, theirs = both(fn)
    assert ours == theirs


@pytest.mark.parametrize("args", [
    (WEIGHTS, 0), (WEIGHTS, -1), (WEIGHTS, 2.0), (WEIGHTS, True), (WEIGHTS, 3, 1), (WEIGHTS, 3, None),
    ([[1.0, 2.0]], 2), (5.0, 2), ([1.0, 2.0], 3, False), ([0.0, 0.0], 2), ([-1.0, 2.0], 2),
], ids=str)
def test_weighted_sampler_errors(args: tuple[Any, ...]) -> None:
    # Bad sizes fail at construction; impossible draws fail in multinomial, at iteration.
    ours, theirs = both(lambda L: list(L.utils.data.WeightedRandomSampler(*args)))
    assert ours == theirs


# ------------------------------------------------------------------ SubsetRandomSampler
@pytest.mark.parametrize("seed", [None, 2])
@pytest.mark.parametrize("indices", [[5, 6, 7, 8], (9, 3, 1), range(10, 20), [4]], ids=str)
def test_subset_random_sampler(indices: Any, seed: int | None) -> None:
    ours, theirs = both(lambda L: (epochs(L.utils.data.SubsetRandomSampler(indices, generator=gen(L, seed))),
                                   len(L.utils.data.SubsetRandomSampler(indices))))
    assert ours == theirs


# ------------------------------------------------------------------ BatchSampler
@pytest.mark.parametrize("n", [0, 1, 9, 10])
@pytest.mark.parametrize("batch_size", [1, 3, 5, 12])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler(n: int, batch_size: int, drop_last: bool) -> None:
    def fn(L: Any) -> Any:
        s = L.utils.data.BatchSampler(L.utils.data.SequentialSampler(RangeDataset(n)), batch_size, drop_last)
        return list(s), len(s)

    ours, theirs = both(fn)
    assert ours == theirs


def test_batch_sampler_over_random_sampler_and_plain_iterables() -> None:
    def fn(L: Any) -> Any:
        shuffled = L.utils.data.BatchSampler(L.utils.data.RandomSampler(RangeDataset(11)), 4, False)
        plain = L.utils.data.BatchSampler(range(7), 3, True)
        return epochs(shuffled), list(plain), len(plain)

    ours, theirs = both(fn)
    assert ours == theirs


@pytest.mark.parametrize("args", [(0, False), (-2, False), (2.0, False), (True, False), ("2", False),
                                  (None, False), (2, 0), (2, None), (2, "yes")], ids=str)
def test_batch_sampler_errors(args: tuple[Any, Any]) -> None:
    ours, theirs = both(lambda L: L.utils.data.BatchSampler(range(4), *args))
    assert ours == theirs


# ------------------------------------------------------------------ DistributedSampler
@pytest.mark.parametrize("n", [1, 2, 10, 11])
@pytest.mark.parametrize("replicas", [1, 3, 5])
@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler(n: int, replicas: int, shuffle: bool, drop_last: bool) -> None:
    # Padding repeats the (shuffled) start, several times over when n < num_replicas.
    def fn(L: Any) -> Any:
        out = []
        for rank in range(replicas):
            s = L.utils.data.DistributedSampler(RangeDataset(n), num_replicas=replicas, rank=rank,
                                                shuffle=shuffle, seed=7, drop_last=drop_last)
            for epoch in (0, 1, 4):
                s.set_epoch(epoch)
                out.append((rank, epoch, list(s), len(s), s.num_samples, s.total_size))
        return out

    ours, theirs = both(fn)
    assert ours == theirs


@pytest.mark.parametrize("kwargs", [dict(num_replicas=3, rank=3), dict(num_replicas=3, rank=-1),
                                    dict(num_replicas=2), dict(rank=0), dict()], ids=str)
def test_distributed_sampler_errors(kwargs: dict[str, Any]) -> None:
    # Without rank/num_replicas the sampler asks the (uninitialised) default process group.
    ours, theirs = both(lambda L: L.utils.data.DistributedSampler(RangeDataset(4), **kwargs))
    assert ours == theirs


def test_distributed_sampler_dataset_shrinks() -> None:
    def fn(L: Any) -> Any:
        ds = RangeDataset(8)
        s = L.utils.data.DistributedSampler(ds, num_replicas=2, rank=0, drop_last=True)
        ds.n = 5
        return list(s)

    ours, theirs = both(fn)
    assert ours == theirs


# ------------------------------------------------------------------ DataLoader(shuffle=True)
@pytest.mark.parametrize("kwargs", [dict(batch_size=4), dict(batch_size=4, drop_last=True), dict(batch_size=None),
                                    dict(batch_size=1)], ids=str)
@pytest.mark.parametrize("seed", [None, 9])
def test_shuffled_loader_epochs(kwargs: dict[str, Any], seed: int | None) -> None:
    # Each iter() draws a base seed from the generator (or the global RNG), then the sampler
    # draws its own seed: over several epochs and afterwards, the draws stay in step.
    def fn(L: Any) -> Any:
        loader = L.utils.data.DataLoader(RangeDataset(13), shuffle=True, generator=gen(L, seed), **kwargs)
        return [list(loader) for _ in range(3)], len(loader)

    for global_seed in (0, 123):
        ours, theirs = both(fn, seed=global_seed)
        assert ours == theirs


def test_shuffled_loader_with_workers() -> None:
    def fn(L: Any) -> Any:
        loader = L.utils.data.DataLoader(RangeDataset(10), batch_size=3, shuffle=True, num_workers=2)
        return [list(loader) for _ in range(2)]

    ours, theirs = both(fn, seed=4)
    assert ours == theirs


def test_unfinished_epoch_draws() -> None:
    # A second iter() before the first ends: both iterators drew their seeds up front.
    def fn(L: Any) -> Any:
        loader = L.utils.data.DataLoader(RangeDataset(9), batch_size=2, shuffle=True)
        a = iter(loader)
        first = next(a)
        return first, list(loader), list(a)

    ours, theirs = both(fn, seed=6)
    assert ours == theirs


# ------------------------------------------------------------------ random_split
@pytest.mark.parametrize("lengths", [[3, 7], [10], [0, 10], [0.3, 0.7], [0.3, 0.3, 0.4], [0.25] * 4, [0.1] * 10,
                                     [1.0], [0.5, 0.5, 0.0], [1 / 3] * 3, [0.05, 0.95]], ids=str)
@pytest.mark.parametrize("seed", [None, 42])
def test_random_split(lengths: list[Any], seed: int | None) -> None:
    def fn(L: Any) -> Any:
        kwargs = {} if seed is None else dict(generator=gen(L, seed))
        parts = L.utils.data.random_split(RangeDataset(10), lengths, **kwargs)
        return [(type(p).__name__, list(p.indices), [p[i] for i in range(len(p))]) for p in parts]

    ours, theirs = both(fn, seed=8)
    assert ours == theirs


@pytest.mark.parametrize("lengths", [[3, 6], [3, 8], [1.5, -0.5], [0.5, 0.6], [0.2, 0.2], [-1, 11], [], [1.2, -0.2]],
                         ids=str)
def test_random_split_errors(lengths: list[Any]) -> None:
    ours, theirs = both(lambda L: [list(p.indices) for p in L.utils.data.random_split(RangeDataset(10), lengths)])
    assert ours == theirs


def test_random_split_float_lengths_that_are_not_fractions() -> None:
    # randperm rejects the float total; only the type is compared, as PyTorch's argument
    # parser lists every randperm overload in its text.
    ours, theirs = both(lambda L: L.utils.data.random_split(RangeDataset(10), [2, 2.0, 6]))
    assert ours[0][:2] == theirs[0][:2] == ("raise", "TypeError")
    assert ours[1] == theirs[1]


def test_random_split_tensor_dataset() -> None:
    def fn(L: Any) -> Any:
        ds = L.utils.data.TensorDataset(L.arange(6), L.arange(6) * 2)
        return [[p[i] for i in range(len(p))] for p in L.utils.data.random_split(ds, [0.5, 0.5])]

    ours, theirs = both(fn, seed=1)
    assert ours == theirs
