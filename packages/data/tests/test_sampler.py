"""Samplers and DistributedSampler."""

from __future__ import annotations

from collections import Counter

import ember
import pytest
from ember.utils.data import (
    BatchSampler,
    DistributedSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from ember.utils.data.distributed import DistributedSampler as DistributedSampler2
from ember_data_testlib import RangeDataset


def test_sequential() -> None:
    s = SequentialSampler(RangeDataset(4))
    assert list(s) == [0, 1, 2, 3] and len(s) == 4
    with pytest.raises(NotImplementedError):
        iter(Sampler())


def test_random_sampler_permutation() -> None:
    s = RandomSampler(RangeDataset(10), generator=ember.Generator().manual_seed(0))
    out = list(s)
    assert sorted(out) == list(range(10)) and len(s) == 10
    assert list(s) != out or list(s) != out  # the generator moves on: epochs differ


def test_random_sampler_generator_reproducible() -> None:
    a = list(RandomSampler(RangeDataset(50), generator=ember.Generator().manual_seed(5)))
    b = list(RandomSampler(RangeDataset(50), generator=ember.Generator().manual_seed(5)))
    assert a == b


def test_random_sampler_global_rng_draws_a_seed_per_iter() -> None:
    s = RandomSampler(RangeDataset(30))
    ember.manual_seed(3)
    a = list(s)
    ember.manual_seed(3)
    b = list(s)
    assert a == b
    c = list(s)  # without reseeding, the next epoch differs
    assert c != b


def test_random_sampler_num_samples_without_replacement_repeats_permutations() -> None:
    s = RandomSampler(RangeDataset(4), num_samples=10, generator=ember.Generator().manual_seed(0))
    out = list(s)
    assert len(out) == 10 == len(s)
    assert sorted(out[:4]) == [0, 1, 2, 3] and sorted(out[4:8]) == [0, 1, 2, 3]
    assert set(out[8:]) <= {0, 1, 2, 3} and len(set(out[8:])) == 2


def test_random_sampler_with_replacement() -> None:
    s = RandomSampler(RangeDataset(3), replacement=True, num_samples=70, generator=ember.Generator().manual_seed(0))
    out = list(s)
    assert len(out) == 70 and set(out) <= {0, 1, 2}
    assert len(set(out)) == 3


@pytest.mark.parametrize("kwargs, exc, msg", [
    ({"replacement": 1}, TypeError, "replacement should be a boolean value, but got replacement=1"),
    ({"num_samples": 0}, ValueError, "num_samples should be a positive integer value, but got num_samples=0"),
    ({"num_samples": 2.5}, ValueError, "num_samples should be a positive integer value, but got num_samples=2.5"),
])
def test_random_sampler_errors(kwargs: dict, exc: type, msg: str) -> None:
    with pytest.raises(exc, match=msg):
        RandomSampler(RangeDataset(3), **kwargs)


def test_random_sampler_errors_match_torch() -> None:
    torch = pytest.importorskip("torch")
    for kwargs in ({"replacement": 1}, {"num_samples": 0}, {"num_samples": -3}):
        with pytest.raises(Exception) as theirs:
            torch.utils.data.RandomSampler(range(3), **kwargs)
        with pytest.raises(Exception) as ours:
            RandomSampler(range(3), **kwargs)
        assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))


def test_subset_random_sampler() -> None:
    s = SubsetRandomSampler([10, 20, 30], generator=ember.Generator().manual_seed(0))
    assert sorted(s) == [10, 20, 30] and len(s) == 3


def test_weighted_random_sampler() -> None:
    s = WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50, generator=ember.Generator().manual_seed(0))
    out = list(s)
    assert len(out) == 50 == len(s) and set(out) <= {1, 3}
    assert Counter(out)[3] > Counter(out)[1]
    no_repl = list(WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False))
    assert sorted(no_repl) == [0, 1, 2, 3]
    assert s.weights.dtype == ember.float64


@pytest.mark.parametrize("args, kwargs, exc, msg", [
    (([1.0, 2.0], 0), {}, ValueError, "num_samples should be a positive integer value, but got num_samples=0"),
    (([1.0, 2.0], True), {}, ValueError, "num_samples should be a positive integer value, but got num_samples=True"),
    (([1.0, 2.0], 2), {"replacement": 0}, ValueError, "replacement should be a boolean value, but got replacement=0"),
    (([[1.0], [2.0]], 2), {}, ValueError, r"weights should be a 1d sequence but given weights have shape \(2, 1\)"),
])
def test_weighted_random_sampler_errors(args: tuple, kwargs: dict, exc: type, msg: str) -> None:
    with pytest.raises(exc, match=msg):
        WeightedRandomSampler(*args, **kwargs)


def test_weighted_random_sampler_bad_distributions() -> None:
    with pytest.raises(RuntimeError, match="invalid multinomial distribution"):
        list(WeightedRandomSampler([-1.0, 2.0], 2))
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        list(WeightedRandomSampler([1.0, 1.0], 3, replacement=False))


@pytest.mark.parametrize("n, bs, drop_last", [(10, 3, False), (10, 3, True), (9, 3, True), (0, 2, False), (5, 8, True)])
def test_batch_sampler_matches_torch(n: int, bs: int, drop_last: bool) -> None:
    torch = pytest.importorskip("torch")
    ours = BatchSampler(SequentialSampler(range(n)), bs, drop_last)
    theirs = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(n)), bs, drop_last)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_batch_sampler_examples_and_errors() -> None:
    assert list(BatchSampler(SequentialSampler(range(10)), 3, False)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert list(BatchSampler(SequentialSampler(range(10)), 3, True)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert list(BatchSampler([5, 1, 3], 2, False)) == [[5, 1], [3]]  # any iterable
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
            BatchSampler(range(3), bad, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=1"):
        BatchSampler(range(3), 2, 1)


def test_distributed_sampler_documented_layouts() -> None:
    ds = RangeDataset(10)
    ranks = [list(DistributedSampler(ds, num_replicas=4, rank=r, shuffle=False)) for r in range(4)]
    assert ranks == [[0, 4, 8], [1, 5, 9], [2, 6, 0], [3, 7, 1]]
    dropped = [list(DistributedSampler(ds, num_replicas=4, rank=r, shuffle=False, drop_last=True)) for r in range(4)]
    assert dropped == [[0, 4], [1, 5], [2, 6], [3, 7]]
    s = DistributedSampler(ds, num_replicas=4, rank=0)
    assert len(s) == 3 and s.total_size == 12
    assert DistributedSampler is DistributedSampler2


def test_distributed_sampler_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    for n, r, drop in ((10, 4, False), (10, 4, True), (3, 8, False), (16, 4, True), (7, 3, False)):
        for rank in range(r):
            ours = DistributedSampler(RangeDataset(n), num_replicas=r, rank=rank, shuffle=False, drop_last=drop)
            theirs = torch.utils.data.DistributedSampler(RangeDataset(n), num_replicas=r, rank=rank, shuffle=False,
                                                         drop_last=drop)
            assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_distributed_sampler_shuffle_and_set_epoch() -> None:
    ds = RangeDataset(20)
    samplers = [DistributedSampler(ds, num_replicas=2, rank=r, seed=7) for r in range(2)]
    epoch0 = [list(s) for s in samplers]
    assert sorted(epoch0[0] + epoch0[1]) == list(range(20))  # ranks partition the data
    assert [list(s) for s in samplers] == epoch0  # no set_epoch: the same order again
    for s in samplers:
        s.set_epoch(1)
    epoch1 = [list(s) for s in samplers]
    assert epoch1 != epoch0 and sorted(epoch1[0] + epoch1[1]) == list(range(20))
    other_seed = DistributedSampler(ds, num_replicas=2, rank=0, seed=8)
    assert list(other_seed) != epoch0[0]


def test_distributed_sampler_rank_errors() -> None:
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(RangeDataset(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match=r"Invalid rank -1"):
        DistributedSampler(RangeDataset(4), num_replicas=2, rank=-1)


def test_distributed_sampler_needs_a_process_group() -> None:
    # Without an initialised default group (or without ember-distributed at all) the
    # defaults cannot be filled in.
    with pytest.raises((ValueError, RuntimeError)) as e:
        DistributedSampler(RangeDataset(4))
    assert ("Default process group has not been initialized" in str(e.value)
            or "Requires distributed package to be available" in str(e.value))
