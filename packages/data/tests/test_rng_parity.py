"""With the same seeds, ember draws the same orders and worker seeds as PyTorch (its RNG
reproduces PyTorch's streams, and the data utilities draw in the same order)."""

from __future__ import annotations

from typing import Any

import ember
import pytest
from ember.utils.data import (
    DataLoader,
    DistributedSampler,
    RandomSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
    get_worker_info,
    random_split,
)
from ember_data_testlib import RangeDataset

torch = pytest.importorskip("torch")
tdata = torch.utils.data


def ints(batches: Any) -> list[Any]:
    return [b.tolist() if hasattr(b, "tolist") else b for b in batches]


def test_shuffled_loader_with_global_seed() -> None:
    for seed in (0, 7):
        ember.manual_seed(seed)
        torch.manual_seed(seed)
        ours = [ints(DataLoader(RangeDataset(25), batch_size=4, shuffle=True)) for _ in range(2)]
        theirs = [ints(tdata.DataLoader(RangeDataset(25), batch_size=4, shuffle=True)) for _ in range(2)]
        assert ours == theirs
        # ... and the global RNG is left in the same state.
        assert ember.rand(4).tolist() == torch.rand(4).tolist()


def test_shuffled_loader_with_generator() -> None:
    ours = DataLoader(RangeDataset(30), batch_size=None, shuffle=True, generator=ember.Generator().manual_seed(2))
    theirs = tdata.DataLoader(RangeDataset(30), batch_size=None, shuffle=True,
                              generator=torch.Generator().manual_seed(2))
    assert [ints(ours), ints(ours)] == [ints(theirs), ints(theirs)]


def test_iter_consumes_the_same_rng_as_torch() -> None:
    ember.manual_seed(1)
    torch.manual_seed(1)
    iter(DataLoader(RangeDataset(3)))
    iter(tdata.DataLoader(RangeDataset(3)))
    assert ember.rand(3).tolist() == torch.rand(3).tolist()


@pytest.mark.parametrize("kwargs", [dict(), dict(replacement=True), dict(num_samples=23),
                                    dict(replacement=True, num_samples=70)])
def test_random_sampler(kwargs: dict) -> None:
    ours = RandomSampler(RangeDataset(10), generator=ember.Generator().manual_seed(4), **kwargs)
    theirs = tdata.RandomSampler(RangeDataset(10), generator=torch.Generator().manual_seed(4), **kwargs)
    assert list(ours) == list(theirs)


def test_other_samplers() -> None:
    assert list(SubsetRandomSampler([5, 6, 7, 8], generator=ember.Generator().manual_seed(0))) == list(
        tdata.SubsetRandomSampler([5, 6, 7, 8], generator=torch.Generator().manual_seed(0)))
    w = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    for repl in (True, False):
        assert list(WeightedRandomSampler(w, 5, repl, generator=ember.Generator().manual_seed(0))) == list(
            tdata.WeightedRandomSampler(w, 5, repl, generator=torch.Generator().manual_seed(0)))
    for epoch in (0, 3):
        ours = DistributedSampler(RangeDataset(11), num_replicas=3, rank=1, seed=5)
        theirs = tdata.DistributedSampler(RangeDataset(11), num_replicas=3, rank=1, seed=5)
        ours.set_epoch(epoch)
        theirs.set_epoch(epoch)
        assert list(ours) == list(theirs)


def test_random_split() -> None:
    for lengths in ([3, 7], [0.3, 0.3, 0.4]):
        ours = random_split(RangeDataset(10), lengths, generator=ember.Generator().manual_seed(42))
        theirs = tdata.random_split(RangeDataset(10), lengths, generator=torch.Generator().manual_seed(42))
        assert [list(s.indices) for s in ours] == [list(s.indices) for s in theirs]


def test_worker_seeds() -> None:
    class TorchSeeds(tdata.Dataset):
        def __getitem__(self, i: int) -> int:
            return tdata.get_worker_info().seed

        def __len__(self) -> int:
            return 4

    class EmberSeeds(RangeDataset):
        def __getitem__(self, i: int) -> int:
            return get_worker_info().seed

    ours = ints(DataLoader(EmberSeeds(4), batch_size=None, num_workers=2, generator=ember.Generator().manual_seed(8)))
    theirs = ints(tdata.DataLoader(TorchSeeds(), batch_size=None, num_workers=2,
                                   generator=torch.Generator().manual_seed(8)))
    assert ours == theirs
