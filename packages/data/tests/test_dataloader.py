"""DataLoader in the calling process: validation, batching, length, RNG use."""

from __future__ import annotations

import warnings
from typing import Any

import ember
import numpy as np
import pytest
from ember.utils.data import (
    DataLoader,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    default_convert,
    get_worker_info,
)
from ember_data_testlib import NoLenStream, RangeDataset, StreamDataset


def values(batches: Any) -> list[Any]:
    """Batches as plain Python values (tensors -> lists), for either library."""
    def conv(x: Any) -> Any:
        if hasattr(x, "tolist") and not isinstance(x, np.ndarray):
            return x.tolist()
        if isinstance(x, (list, tuple)):
            return [conv(v) for v in x]
        if isinstance(x, dict):
            return {k: conv(v) for k, v in x.items()}
        return x
    return [conv(b) for b in batches]


VALIDATION = [
    (dict(num_workers=-1), "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."),
    (dict(timeout=-1), "timeout option should be non-negative"),
    (dict(prefetch_factor=2), "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                              "to enable multiprocessing, otherwise set prefetch_factor to None."),
    (dict(num_workers=1, prefetch_factor=-1), "prefetch_factor option should be non-negative"),
    (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
    (dict(sampler=[0, 1], shuffle=True), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                              "sampler, and drop_last"),
    (dict(batch_sampler=[[0]], drop_last=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], shuffle=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching and is mutually exclusive "
                                            "with drop_last"),
    (dict(multiprocessing_context="fork"), "multiprocessing_context can only be used with multi-process loading "
                                           "(num_workers > 0), but got num_workers=0"),
    (dict(num_workers=1, multiprocessing_context="foo"), "multiprocessing_context option should specify a valid start "
                                                         "method in"),
]


@pytest.mark.parametrize("kwargs, msg", VALIDATION)
def test_constructor_validation(kwargs: dict, msg: str) -> None:
    with pytest.raises(ValueError) as e:
        DataLoader(RangeDataset(4), **kwargs)
    assert str(e.value).startswith(msg)


@pytest.mark.parametrize("kwargs, msg", VALIDATION)
def test_constructor_validation_matches_torch(kwargs: dict, msg: str) -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        torch.utils.data.DataLoader(RangeDataset(4), **kwargs)
    with pytest.raises(Exception) as ours:
        DataLoader(RangeDataset(4), **kwargs)
    assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))


@pytest.mark.parametrize("kwargs", [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])])
def test_iterable_dataset_rejects_samplers(kwargs: dict) -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as ours:
        DataLoader(StreamDataset(0, 3), **kwargs)
    class TorchStream(torch.utils.data.IterableDataset):
        def __iter__(self) -> Any:
            return iter(range(3))

    with pytest.raises(ValueError) as theirs:
        torch.utils.data.DataLoader(TorchStream(), **kwargs)
    assert str(ours.value).split(", but got")[0] == str(theirs.value).split(", but got")[0]
    assert str(ours.value).startswith("DataLoader with IterableDataset: expected unspecified")


def test_bad_context_type() -> None:
    with pytest.raises(TypeError, match="multiprocessing_context option should be a valid context object"):
        DataLoader(RangeDataset(2), num_workers=1, multiprocessing_context=3)


def test_attributes_and_defaults() -> None:
    dl = DataLoader(RangeDataset(5))
    assert dl.batch_size == 1 and dl.drop_last is False and dl.num_workers == 0
    assert dl.prefetch_factor is None and dl.multiprocessing_context is None and dl.timeout == 0
    assert isinstance(dl.sampler, SequentialSampler) and dl.collate_fn is default_collate
    assert dl.persistent_workers is False and dl.generator is None and dl.worker_init_fn is None
    assert DataLoader(RangeDataset(5), num_workers=2).prefetch_factor == 2
    assert isinstance(DataLoader(RangeDataset(5), shuffle=True).sampler, RandomSampler)
    assert DataLoader(RangeDataset(5), batch_size=None).collate_fn is default_convert
    for attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers"):
        with pytest.raises(ValueError, match=f"{attr} attribute should not be set after DataLoader is initialized"):
            setattr(dl, attr, None)
    dl.num_workers = 0  # others may change


CASES = [
    ("range bs4", lambda: list(range(10)), dict(batch_size=4)),
    ("range bs4 drop_last", lambda: list(range(10)), dict(batch_size=4, drop_last=True)),
    ("no batching", lambda: list(range(3)), dict(batch_size=None)),
    ("sampler list", lambda: list(range(10)), dict(sampler=[3, 1], batch_size=2)),
    ("batch_sampler list", lambda: list(range(10)), dict(batch_sampler=[[1, 2], [5]])),
    ("tuples", lambda: [(i, float(i), str(i)) for i in range(5)], dict(batch_size=2)),
    ("dicts", lambda: [{"a": i, "b": [i, i]} for i in range(5)], dict(batch_size=3)),
    ("numpy", lambda: [np.full(2, i, dtype=np.int32) for i in range(5)], dict(batch_size=2)),
    ("numpy no batching", lambda: [np.full(2, i) for i in range(3)], dict(batch_size=None)),
    ("custom collate", lambda: list(range(7)), dict(batch_size=3, collate_fn=lambda b: sum(b))),
]


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_batches_match_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    _, make, kwargs = next(c for c in CASES if c[0] == name)
    ours = DataLoader(make(), **kwargs)
    theirs = torch.utils.data.DataLoader(make(), **kwargs)
    assert values(ours) == values(theirs)
    assert len(ours) == len(theirs)


def test_tensor_dataset_batches_match_torch() -> None:
    torch = pytest.importorskip("torch")
    x = np.arange(60, dtype=np.float32).reshape(20, 3)
    y = np.arange(20)
    for kwargs in (dict(batch_size=6), dict(batch_size=6, drop_last=True), dict(batch_size=None),
                   dict(sampler=[19, 0, 5, -1], batch_size=3)):
        ours = DataLoader(TensorDataset(ember.tensor(x), ember.tensor(y)), **kwargs)
        theirs = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.tensor(x), torch.tensor(y)), **kwargs)
        assert values(ours) == values(theirs)
        assert [str(t.dtype) for t in next(iter(ours))] == [str(t.dtype) for t in next(iter(theirs))]


def test_tensor_dataset_fast_path_equals_general_path() -> None:
    x = ember.arange(40.0).reshape(10, 2, 2)
    y = ember.arange(10, dtype=ember.int32)
    ds = TensorDataset(x, y)
    idx = [9, 0, 3, -2]
    fast = ds._gather_collated(idx)
    slow = default_collate([ds[i] for i in idx])
    assert fast is not None and values(fast) == values(slow)
    assert [t.dtype for t in fast] == [t.dtype for t in slow]
    assert ds._gather_collated([0, 10]) is None  # out of range: the general path raises
    with pytest.raises(IndexError):
        list(DataLoader(ds, sampler=[0, 10], batch_size=2))
    # Subsets of a TensorDataset take the fast path too, through their indices.
    sub = Subset(ds, [5, 6, 7])
    assert values(sub._gather_collated([2, 0])) == values(default_collate([sub[2], sub[0]]))


def test_tensor_dataset_subclass_getitem_is_respected() -> None:
    class Doubled(TensorDataset):
        def __getitem__(self, i: int) -> tuple[Any, ...]:
            return tuple(t[i] * 2 for t in self.tensors)

    out = next(iter(DataLoader(Doubled(ember.arange(4)), batch_size=4)))
    assert out[0].tolist() == [0, 2, 4, 6]


def test_custom_collate_fn_gets_samples() -> None:
    seen = []
    ds = TensorDataset(ember.arange(6), ember.arange(6) * 10)
    list(DataLoader(ds, batch_size=4, collate_fn=lambda b: seen.append(b) or len(b)))
    assert len(seen) == 2 and isinstance(seen[0], list) and isinstance(seen[0][0], tuple)
    assert seen[0][1][1].item() == 10


def test_getitems_is_used_when_present() -> None:
    class Batched(RangeDataset):
        def __init__(self, n: int) -> None:
            super().__init__(n)
            self.calls: list[list[int]] = []

        def __getitems__(self, idx: list[int]) -> list[int]:
            self.calls.append(list(idx))
            return [i + 100 for i in idx]

    ds = Batched(5)
    assert values(DataLoader(ds, batch_size=2)) == [[100, 101], [102, 103], [104]]
    assert ds.calls == [[0, 1], [2, 3], [4]]


def test_iterable_dataset_batching_and_len() -> None:
    ds = StreamDataset(0, 4)
    assert values(DataLoader(ds, batch_size=3)) == [[0, 1, 2], [3]]
    assert values(DataLoader(ds, batch_size=3, drop_last=True)) == [[0, 1, 2]]
    assert values(DataLoader(ds, batch_size=None)) == [0, 1, 2, 3]
    assert len(DataLoader(ds, batch_size=3)) == 2 and len(DataLoader(ds, batch_size=3, drop_last=True)) == 1
    assert len(DataLoader(ds, batch_size=None)) == 4
    with pytest.raises(TypeError):
        len(DataLoader(NoLenStream()))


def test_iterable_dataset_len_matches_torch() -> None:
    torch = pytest.importorskip("torch")

    class TorchStream(torch.utils.data.IterableDataset):
        def __init__(self, n: int) -> None:
            self.n = n

        def __iter__(self) -> Any:
            return iter(range(self.n))

        def __len__(self) -> int:
            return self.n

    for n in (0, 1, 7, 9):
        for kwargs in (dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)):
            assert len(DataLoader(StreamDataset(0, n), **kwargs)) == len(
                torch.utils.data.DataLoader(TorchStream(n), **kwargs))
            assert values(DataLoader(StreamDataset(0, n), **kwargs)) == values(
                torch.utils.data.DataLoader(TorchStream(n), **kwargs))


def test_map_len_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    for n in (0, 1, 8, 9):
        for kwargs in (dict(batch_size=4), dict(batch_size=4, drop_last=True), dict(batch_size=None),
                       dict(batch_sampler=[[0], [1, 2]])):
            theirs = torch.utils.data.DataLoader(RangeDataset(n), **kwargs)
            assert len(DataLoader(RangeDataset(n), **kwargs)) == len(theirs)


def test_iterable_len_warning_when_more_samples_arrive() -> None:
    class Liar(IterableDataset):
        def __iter__(self) -> Any:
            return iter(range(5))

        def __len__(self) -> int:
            return 2

    dl = DataLoader(Liar(), batch_size=None)
    assert len(dl) == 2
    with pytest.warns(UserWarning, match="Length of IterableDataset .* was reported to be 2"):
        list(dl)


def test_each_iter_draws_one_int64_from_the_global_rng() -> None:
    ember.manual_seed(0)
    ember.empty((), dtype=ember.int64).random_()
    expected = ember.rand(3).tolist()
    ember.manual_seed(0)
    dl = DataLoader(RangeDataset(4))  # constructing consumes nothing
    iter(dl)  # no workers, no shuffle: still one draw
    assert ember.rand(3).tolist() == expected


def test_iter_with_generator_leaves_global_rng_alone() -> None:
    ember.manual_seed(0)
    expected = ember.rand(3).tolist()
    ember.manual_seed(0)
    iter(DataLoader(RangeDataset(4), generator=ember.Generator().manual_seed(1)))
    assert ember.rand(3).tolist() == expected


def test_shuffle_reshuffles_each_epoch_and_generator_reproduces() -> None:
    def epochs(seed: int) -> list[list[int]]:
        dl = DataLoader(RangeDataset(20), batch_size=None, shuffle=True, generator=ember.Generator().manual_seed(seed))
        return [list(dl), list(dl)]

    a = epochs(4)
    assert a == epochs(4)
    assert a[0] != a[1] and sorted(a[0]) == list(range(20))
    ember.manual_seed(9)
    b = list(DataLoader(RangeDataset(20), batch_size=None, shuffle=True))
    ember.manual_seed(9)
    assert list(DataLoader(RangeDataset(20), batch_size=None, shuffle=True)) == b


def test_get_worker_info_is_none_in_main_process() -> None:
    assert get_worker_info() is None


def test_pin_memory_without_accelerator_warns_and_is_ignored() -> None:
    dl = DataLoader(TensorDataset(ember.arange(4)), batch_size=2, pin_memory=True)
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        out = values(dl)
    assert out == [[[0, 1]], [[2, 3]]]


def test_timeout_needs_workers() -> None:
    with pytest.raises(AssertionError):
        iter(DataLoader(RangeDataset(2), timeout=1))


def test_iterator_len_and_pickling() -> None:
    it = iter(DataLoader(RangeDataset(5), batch_size=2))
    assert len(it) == 3 and iter(it) is it
    import pickle

    with pytest.raises(NotImplementedError):
        pickle.dumps(it)


def test_worker_count_warning() -> None:
    import os

    n = len(os.sched_getaffinity(0)) + 1
    with pytest.warns(UserWarning, match=f"This DataLoader will create {n} worker processes in total"):
        DataLoader(RangeDataset(2), num_workers=n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DataLoader(RangeDataset(2), num_workers=1)
