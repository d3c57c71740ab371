"""Side-by-side sweep of the DataLoader in one process: argument validation (exception type
and text), attribute freezing, len() (with the IterableDataset over-length warning), pin_memory
on a machine without an accelerator, and iteration results for every batching mode."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any

import ember
import numpy as np
import pytest
from ember_data_testlib import RangeDataset, outcome

torch = pytest.importorskip("torch")


def stream(L: Any, n: int, length: int | None = None) -> Any:
    """An IterableDataset of ``L`` yielding 0..n-1 whose ``len`` claims ``length``."""

    class Stream(L.utils.data.IterableDataset):
        def __iter__(self) -> Any:
            return iter(range(n))

        def __repr__(self) -> str:  # the over-length warning names the dataset
            return "Stream"

    if length is not None:
        Stream.__len__ = lambda self: length  # type: ignore[attr-defined]
    return Stream()


def loader(L: Any, dataset: Any = None, **kwargs: Any) -> Any:
    return L.utils.data.DataLoader(RangeDataset(5) if dataset is None else dataset, **kwargs)


BAD_KWARGS: list[dict[str, Any]] = [
    dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(prefetch_factor=-1, num_workers=1),
    dict(prefetch_factor=0), dict(persistent_workers=True), dict(shuffle=True, sampler=[0, 1]),
    dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], shuffle=True),
    dict(batch_sampler=[[0]], sampler=[0]), dict(batch_sampler=[[0]], drop_last=True),
    dict(batch_sampler=[[0]], batch_size=None), dict(batch_size=None, drop_last=True), dict(batch_size=0),
    dict(batch_size=-2), dict(batch_size=2.0), dict(batch_size=True), dict(drop_last=1),
    dict(multiprocessing_context="spawn"), dict(multiprocessing_context="bogus", num_workers=1),
    dict(multiprocessing_context=3, num_workers=1), dict(multiprocessing_context=object(), num_workers=1),
    dict(num_workers=1, prefetch_factor="2"), dict(timeout="1"), dict(shuffle="yes"), dict(shuffle=0),
    dict(sampler=[0, 1], shuffle=False), dict(num_workers=1, persistent_workers=True, prefetch_factor=1),
]


@pytest.mark.parametrize("kwargs", BAD_KWARGS, ids=str)
def test_constructor_arguments(kwargs: dict[str, Any]) -> None:
    # The valid ones among these must also agree on the resulting attributes.
    def fn(L: Any) -> Any:
        dl = loader(L, **kwargs)
        ctx = dl.multiprocessing_context
        return (dl.batch_size, dl.drop_last, dl.prefetch_factor, dl.num_workers, type(dl.sampler).__name__,
                type(dl.batch_sampler).__name__, None if ctx is None else ctx.get_start_method())

    assert outcome(lambda: fn(ember)) == outcome(lambda: fn(torch))


@pytest.mark.parametrize("kwargs", [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]]),
                                    dict(shuffle=False), dict(batch_size=None), dict(drop_last=True)], ids=str)
def test_iterable_dataset_arguments(kwargs: dict[str, Any]) -> None:
    def fn(L: Any) -> Any:
        dl = loader(L, stream(L, 3), **kwargs)
        return type(dl.sampler).__name__, dl._dataset_kind, list(dl)

    assert outcome(lambda: fn(ember)) == outcome(lambda: fn(torch))


def test_multiprocessing_context_values() -> None:
    def fn(L: Any) -> Any:
        out = []
        for ctx in ("fork", multiprocessing.get_context("spawn"), None):
            dl = loader(L, num_workers=1, multiprocessing_context=ctx)
            out.append(None if dl.multiprocessing_context is None else dl.multiprocessing_context.get_start_method())
        return out

    assert outcome(lambda: fn(ember)) == outcome(lambda: fn(torch))


FROZEN = ["batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers"]
SETTABLE = ["num_workers", "collate_fn", "pin_memory", "timeout", "worker_init_fn", "generator", "prefetch_factor",
            "in_order", "shuffle", "anything_else"]


@pytest.mark.parametrize("attr", FROZEN + SETTABLE)
def test_setting_attributes_after_init(attr: str) -> None:
    def fn(L: Any) -> Any:
        dl = loader(L)
        setattr(dl, attr, getattr(dl, attr, None))
        return getattr(dl, attr) is not None

    assert outcome(lambda: fn(ember)) == outcome(lambda: fn(torch))


@pytest.mark.parametrize("ctx", ["spawn", None])
def test_setting_multiprocessing_context_after_init(ctx: str | None) -> None:
    # The setter validates against the current num_workers.
    def fn(L: Any) -> Any:
        dl = loader(L)
        dl.multiprocessing_context = ctx
        return dl.multiprocessing_context

    assert outcome(lambda: fn(ember)) == outcome(lambda: fn(torch))


LENGTHS: dict[str, Callable[[Any], Any]] = {
    "map": lambda L: len(loader(L, RangeDataset(10), batch_size=3)),
    "map_drop_last": lambda L: len(loader(L, RangeDataset(10), batch_size=3, drop_last=True)),
    "map_unbatched": lambda L: len(loader(L, RangeDataset(10), batch_size=None)),
    "map_batch_sampler": lambda L: len(loader(L, batch_sampler=[[0, 1], [2]])),
    "map_sampler_without_len": lambda L: len(loader(L, sampler=iter([0, 1]))),
    "iterable": lambda L: len(loader(L, stream(L, 10, 10), batch_size=3)),
    "iterable_drop_last": lambda L: len(loader(L, stream(L, 10, 10), batch_size=3, drop_last=True)),
    "iterable_unbatched": lambda L: len(loader(L, stream(L, 10, 10), batch_size=None)),
    "iterable_without_len": lambda L: len(loader(L, stream(L, 10))),
    "iterator_len": lambda L: len(iter(loader(L, RangeDataset(10), batch_size=4))),
    "iterable_iterator_len": lambda L: len(iter(loader(L, stream(L, 4, 4), batch_size=3))),
}


@pytest.mark.parametrize("name", sorted(LENGTHS))
def test_len(name: str) -> None:
    assert outcome(lambda: LENGTHS[name](ember)) == outcome(lambda: LENGTHS[name](torch))


@pytest.mark.parametrize("call_len", [True, False])
@pytest.mark.parametrize("kwargs", [dict(batch_size=None), dict(batch_size=2), dict(batch_size=2, drop_last=True)],
                         ids=str)
def test_iterable_over_length_warning(kwargs: dict[str, Any], call_len: bool) -> None:
    # The warning needs len(loader) first, and then fires for every batch beyond it.
    def fn(L: Any) -> Any:
        dl = loader(L, stream(L, 7, 3), **kwargs)
        n = len(dl) if call_len else None
        return n, list(dl)

    assert outcome(lambda: fn(ember)) == outcome(lambda: fn(torch))


def test_iterable_len_called_after_iter() -> None:
    # An iterator made before len() was called does not warn; the next one does.
    def fn(L: Any) -> Any:
        dl = loader(L, stream(L, 4, 2), batch_size=None)
        it = iter(dl)
        len(dl)
        return list(it), list(dl)

    assert outcome(lambda: fn(ember)) == outcome(lambda: fn(torch))


@pytest.mark.parametrize("kwargs", [dict(pin_memory=True), dict(pin_memory=True, pin_memory_device="cpu"),
                                    dict(pin_memory=False, pin_memory_device="cpu")], ids=str)
def test_pin_memory_without_accelerator(kwargs: dict[str, Any]) -> None:
    # Warned at iter(), not at construction; the batches are left unpinned.
    if torch.accelerator.is_available():
        pytest.skip("the oracle has an accelerator")

    def fn(L: Any) -> Any:
        dl = loader(L, L.utils.data.TensorDataset(L.arange(4)), batch_size=2, **kwargs)
        return [b[0].is_pinned() for b in dl]

    assert outcome(lambda: fn(ember)) == outcome(lambda: fn(torch))


def test_timeout_without_workers() -> None:
    assert outcome(lambda: iter(loader(ember, timeout=2))) == outcome(lambda: iter(loader(torch, timeout=2)))


def _td(L: Any) -> Any:
    return L.utils.data.TensorDataset(L.arange(5) * 3)


class Doubler:
    """A picklable collate_fn."""

    def __call__(self, batch: Any) -> Any:
        return [2 * x for x in batch]


RESULTS: dict[str, Callable[[Any], Any]] = {
    "default": lambda L: list(loader(L)),
    "batch_3": lambda L: list(loader(L, batch_size=3)),
    "batch_3_drop_last": lambda L: list(loader(L, batch_size=3, drop_last=True)),
    "unbatched": lambda L: list(loader(L, batch_size=None)),
    "sampler": lambda L: list(loader(L, sampler=[4, 0, 2], batch_size=2)),
    "batch_sampler": lambda L: list(loader(L, batch_sampler=[[4, 0], [2]])),
    "batch_sampler_object": lambda L: list(loader(L, batch_sampler=L.utils.data.BatchSampler(range(5), 2, True))),
    "collate_fn": lambda L: list(loader(L, batch_size=2, collate_fn=Doubler())),
    "collate_fn_unbatched": lambda L: list(loader(L, batch_size=None, collate_fn=Doubler())),
    "list_dataset": lambda L: list(loader(L, [(1, "a"), (2, "b"), (3, "c")], batch_size=2)),
    "dict_dataset": lambda L: list(loader(L, {0: "x", 1: "y"}, batch_size=2)),
    "iterable": lambda L: list(loader(L, stream(L, 5), batch_size=2)),
    "iterable_drop_last": lambda L: list(loader(L, stream(L, 5), batch_size=2, drop_last=True)),
    "iterable_unbatched": lambda L: list(loader(L, stream(L, 3), batch_size=None)),
    "index_error": lambda L: list(loader(L, sampler=[0, 9])),
    "empty": lambda L: list(loader(L, RangeDataset(0), batch_size=2)),
    "iter_twice": lambda L: (lambda dl: (list(dl), list(dl)))(loader(L, batch_size=2)),
    # Keys that are not Python ints: tensors, NumPy integers and arrays, tuples, bools.
    "tensor_sampler": lambda L: list(loader(L, list(range(5)), sampler=L.tensor([4, 0, 2]), batch_size=2)),
    "tensor_sampler_tensor_dataset": lambda L: list(loader(L, _td(L), sampler=L.tensor([4, 0, 2]), batch_size=2)),
    "tensor_batches": lambda L: list(loader(L, _td(L), batch_sampler=[L.tensor([4, 0]), L.tensor([2])])),
    "tuple_batches": lambda L: list(loader(L, _td(L), batch_sampler=[(4, 0), (2,)])),
    "numpy_batches": lambda L: list(loader(L, _td(L), batch_sampler=[np.array([4, 0]), np.array([2])])),
    "numpy_int_keys": lambda L: list(loader(L, _td(L), sampler=[np.int64(4), np.int32(1)], batch_size=2)),
    "bool_batch": lambda L: list(loader(L, _td(L), batch_sampler=[[True, False]])),
    "empty_batch": lambda L: list(loader(L, _td(L), batch_sampler=[[]])),
    "nested_key_lists": lambda L: list(loader(L, _td(L), batch_sampler=[[[0, 1], [2, 3]]])),
    "zero_dim_tensor_dataset": lambda L: list(loader(L, L.utils.data.TensorDataset(L.tensor(3.0)))),
    "subset_tensor_key": lambda L: L.utils.data.Subset(list(range(10)), [5, 6, 7])[L.tensor(1)],
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_results(name: str) -> None:
    assert outcome(lambda: RESULTS[name](ember)) == outcome(lambda: RESULTS[name](torch))


def test_iterator_cannot_be_pickled() -> None:
    import pickle

    ours = outcome(lambda: pickle.dumps(iter(loader(ember))))
    theirs = outcome(lambda: pickle.dumps(iter(loader(torch))))
    assert ours[:2] == theirs[:2] == ("raise", "NotImplementedError")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool", "float16", "bfloat16",
                                   "complex64"])
@pytest.mark.parametrize("sampler", [[3, 0, 1], [-1, 0], [0, 5], [[0, 1], [2]]], ids=str)
def test_tensor_dataset_batches(dtype: str, sampler: list[Any]) -> None:
    # ember gathers TensorDataset batches in one step where it can; results and errors
    # (negative and out-of-range keys) must be those of indexing sample by sample.
    def fn(L: Any) -> Any:
        x = L.arange(12).reshape(4, 3).to(getattr(L, dtype))
        ds = L.utils.data.TensorDataset(x, L.arange(4))
        kw = dict(batch_sampler=sampler) if isinstance(sampler[0], list) else dict(sampler=sampler, batch_size=2)
        return list(L.utils.data.DataLoader(ds, **kw)), list(L.utils.data.DataLoader(
            L.utils.data.Subset(ds, [3, 2, 1, 0]), **kw))

    assert outcome(lambda: fn(ember)) == outcome(lambda: fn(torch))


def test_too_many_workers_warning() -> None:
    import os

    n = len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) + 1
    ours = outcome(lambda: loader(ember, num_workers=n).num_workers)
    theirs = outcome(lambda: loader(torch, num_workers=n).num_workers)
    assert ours == theirs and ours[2]
