"""Datasets and random_split."""

from __future__ import annotations

import warnings

import ember
import pytest
from ember.utils.data import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from ember_data_testlib import RangeDataset, StreamDataset


def test_dataset_base() -> None:
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        Dataset()[0]
    assert not hasattr(Dataset, "__len__")
    both = RangeDataset(2) + RangeDataset(3)
    assert isinstance(both, ConcatDataset) and [both[i] for i in range(5)] == [0, 1, 0, 1, 2]


def test_iterable_dataset_needs_iter_and_chains() -> None:
    with pytest.raises(TypeError):
        IterableDataset()  # abstract: __iter__ is required
    chained = StreamDataset(0, 2) + StreamDataset(5, 7)
    assert isinstance(chained, ChainDataset) and list(chained) == [0, 1, 5, 6] and len(chained) == 4


def test_tensor_dataset() -> None:
    x, y = ember.arange(12.0).reshape(4, 3), ember.arange(4)
    ds = TensorDataset(x, y)
    assert len(ds) == 4
    a, b = ds[2]
    assert a.tolist() == [6.0, 7.0, 8.0] and b.item() == 2
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, ember.arange(5))
    rows = ds[1:3]  # any index the tensors accept
    assert rows[0].shape == (2, 3)


def test_concat_dataset() -> None:
    ds = ConcatDataset([RangeDataset(3), RangeDataset(2)])
    assert len(ds) == 5 and ds.cumulative_sizes == [3, 5]
    assert [ds[i] for i in range(5)] == [0, 1, 2, 0, 1]
    assert ds[-1] == 1 and ds[-5] == 0
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        ds[-6]
    with pytest.raises(IndexError):
        ds[5]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([StreamDataset(0, 2)])
    with pytest.warns(FutureWarning):
        assert ds.cummulative_sizes == [3, 5]


def test_concat_dataset_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    ours = ConcatDataset([RangeDataset(3), [10, 11], RangeDataset(4)])
    theirs = torch.utils.data.ConcatDataset([RangeDataset(3), [10, 11], RangeDataset(4)])
    assert [ours[i] for i in range(-9, 9)] == [theirs[i] for i in range(-9, 9)]
    assert ours.cumulative_sizes == theirs.cumulative_sizes


def test_chain_dataset_is_lazy_and_checks_members() -> None:
    ds = ChainDataset([StreamDataset(0, 3), StreamDataset(3, 4)])
    assert list(ds) == [0, 1, 2, 3] and len(ds) == 4
    bad = ChainDataset([StreamDataset(0, 1), RangeDataset(2)])
    it = iter(bad)
    assert next(it) == 0  # nothing checked before it is reached
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        next(it)


def test_subset_and_nesting() -> None:
    base = RangeDataset(10)
    sub = Subset(base, [9, 7, 5, 3])
    assert len(sub) == 4 and sub[0] == 9 and sub.dataset is base and sub.indices == [9, 7, 5, 3]
    nested = Subset(sub, [3, 0])
    assert [nested[i] for i in range(2)] == [3, 9]
    assert nested.__getitems__([0, 1]) == [3, 9]


def test_subset_getitems_passthrough() -> None:
    class Batched(RangeDataset):
        calls: list[list[int]] = []

        def __getitems__(self, idx: list[int]) -> list[int]:
            self.calls.append(list(idx))
            return [i * 10 for i in idx]

    base = Batched(6)
    assert Subset(base, [5, 4, 3]).__getitems__([0, 2]) == [50, 30]
    assert base.calls == [[5, 3]]


def test_subset_subclass_overriding_getitem_must_override_getitems() -> None:
    class Bad(Subset):
        def __getitem__(self, i: int) -> int:
            return 0

    with pytest.raises(NotImplementedError, match="overrides __getitem__ but not __getitems__"):
        Bad(RangeDataset(3), [0])


def test_stack_dataset() -> None:
    a, b = RangeDataset(3), [10, 11, 12]
    assert StackDataset(a, b)[1] == (1, 11)
    assert StackDataset(a=a, b=b)[1] == {"a": 1, "b": 11}
    assert len(StackDataset(a, b)) == 3
    assert StackDataset(a, b).__getitems__([0, 2]) == [(0, 10), (2, 12)]
    assert StackDataset(a=a, b=b).__getitems__([2]) == [{"a": 2, "b": 12}]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(a, [1])
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(a=a, b=[1])
    with pytest.raises(ValueError, match="but both types are given"):
        StackDataset(a, b=b)
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()


@pytest.mark.parametrize("n, fractions, expected", [
    (11, [0.5, 0.5], [6, 5]),
    (7, [0.1, 0.2, 0.7], [1, 2, 4]),
    (10, [0.3, 0.7], [3, 7]),
    (30, [0.3, 0.3, 0.4], [9, 9, 12]),
])
def test_random_split_fractions(n: int, fractions: list[float], expected: list[int]) -> None:
    parts = random_split(RangeDataset(n), fractions, generator=ember.Generator().manual_seed(0))
    assert [len(p) for p in parts] == expected
    items = sorted(x for p in parts for x in (p[i] for i in range(len(p))))
    assert items == list(range(n))


def test_random_split_lengths_match_torch() -> None:
    torch = pytest.importorskip("torch")
    for n, lengths in ((11, [0.5, 0.5]), (7, [0.1, 0.2, 0.7]), (13, [0.25, 0.25, 0.25, 0.25]), (10, [3, 7])):
        ours = [len(p) for p in random_split(RangeDataset(n), lengths, generator=ember.Generator().manual_seed(1))]
        theirs = [len(p) for p in torch.utils.data.random_split(RangeDataset(n), lengths,
                                                                 generator=torch.Generator().manual_seed(1))]
        assert ours == theirs


def test_random_split_errors_and_warnings() -> None:
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(RangeDataset(5), [2, 2])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(RangeDataset(5), [1.0, -0.5, 0.5])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(RangeDataset(2), [1.0, 0.0])


def test_random_split_is_reproducible() -> None:
    def split(seed: int) -> list[list[int]]:
        parts = random_split(RangeDataset(20), [5, 15], generator=ember.Generator().manual_seed(seed))
        return [list(p.indices) for p in parts]

    assert split(3) == split(3)
    assert split(3) != split(4)
    # The default is the global generator, so manual_seed makes it reproducible too.
    ember.manual_seed(11)
    a = [list(p.indices) for p in random_split(RangeDataset(20), [10, 10])]
    ember.manual_seed(11)
    b = [list(p.indices) for p in random_split(RangeDataset(20), [10, 10])]
    assert a == b
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sorted(a[0] + a[1]) == list(range(20))
