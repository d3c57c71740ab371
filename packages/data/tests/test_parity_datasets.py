"""Side-by-side sweep of the dataset combinators: Subset, ConcatDataset, ChainDataset,
StackDataset, TensorDataset and the Dataset/IterableDataset bases give PyTorch's items,
lengths, warnings and errors (type and text)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest
from ember_data_testlib import RangeDataset, outcome

torch = pytest.importorskip("torch")


class ListItems:
    """A duck-typed map-style dataset (no base class) with a batch ``__getitems__``."""

    def __init__(self, items: list[Any], short: bool = False) -> None:
        self.items, self.short = items, short

    def __getitem__(self, i: int) -> Any:
        return self.items[i]

    def __getitems__(self, indices: list[int]) -> list[Any]:
        out = [("batch", self.items[i]) for i in indices]
        return out[:-1] if self.short else out

    def __len__(self) -> int:
        return len(self.items)


def stream(L: Any, values: list[Any], with_len: bool = True) -> Any:
    """An IterableDataset of ``L`` over ``values``."""

    class Stream(L.utils.data.IterableDataset):
        def __iter__(self) -> Any:
            return iter(values)

    if with_len:
        Stream.__len__ = lambda self: len(values)  # type: ignore[attr-defined]
    return Stream()


def items(ds: Any, keys: Any) -> list[Any]:
    return [outcome(lambda k=k: ds[k]) for k in keys]


CASES: dict[str, Callable[[Any], Any]] = {
    # Subset
    "subset": lambda L: (lambda s: (len(s), items(s, [0, 1, 2, -1, -3, 3, [0, 2]]), s.__getitems__([2, 0])))(
        L.utils.data.Subset(list(range(10, 20)), [4, 0, 7])),
    "subset_of_subset": lambda L: (lambda s: (len(s), items(s, range(-2, 3))))(
        L.utils.data.Subset(L.utils.data.Subset(RangeDataset(10), [9, 8, 7, 6]), [3, 1])),
    "subset_batch_getitems": lambda L: L.utils.data.Subset(ListItems(list("abcdef")), [5, 3, 1]).__getitems__([0, 2]),
    "subset_range_indices": lambda L: items(L.utils.data.Subset(RangeDataset(10), range(2, 8, 2)), [0, 2, -1]),
    "subset_override_getitem_only": lambda L: type(
        "MySubset", (L.utils.data.Subset,), {"__getitem__": lambda self, i: i})(RangeDataset(3), [0]),
    "subset_tensor_dataset": lambda L: L.utils.data.Subset(
        L.utils.data.TensorDataset(L.arange(5), L.arange(5) * 10), [4, 1])[1],
    # ConcatDataset
    "concat": lambda L: (lambda c: (len(c), c.cumulative_sizes, items(c, [0, 2, 3, 5, 6, -1, -6, -7, 7, 100])))(
        L.utils.data.ConcatDataset([RangeDataset(3), [], list("abc")])),
    "concat_add": lambda L: (lambda c: (type(c).__name__, len(c), c.cumulative_sizes, items(c, range(-5, 5))))(
        RangeDataset(2) + L.utils.data.TensorDataset(L.arange(3))),
    "concat_generator_input": lambda L: L.utils.data.ConcatDataset(d for d in ([1], [2, 3])).cumulative_sizes,
    "concat_empty": lambda L: L.utils.data.ConcatDataset([]),
    "concat_iterable": lambda L: L.utils.data.ConcatDataset([RangeDataset(2), stream(L, [1])]),
    "concat_cumsum": lambda L: L.utils.data.ConcatDataset.cumsum([[1, 2], [], [3]]),
    "concat_deprecated_name": lambda L: L.utils.data.ConcatDataset([[1, 2], [3]]).cummulative_sizes,
    "concat_slice": lambda L: L.utils.data.ConcatDataset([[1, 2], [3]])[0:1],
    # ChainDataset
    "chain": lambda L: (lambda c: (list(c), len(c)))(L.utils.data.ChainDataset([stream(L, [1, 2]), stream(L, [3])])),
    "chain_add": lambda L: (lambda c: (type(c).__name__, list(c)))(stream(L, [1]) + stream(L, [2, 3])),
    "chain_map_style_iter": lambda L: list(L.utils.data.ChainDataset([stream(L, [1]), RangeDataset(2)])),
    "chain_map_style_len": lambda L: len(L.utils.data.ChainDataset([stream(L, [1]), RangeDataset(2)])),
    "chain_no_len": lambda L: len(L.utils.data.ChainDataset([stream(L, [1], with_len=False)])),
    "chain_is_lazy": lambda L: type(L.utils.data.ChainDataset([RangeDataset(2)])).__name__,
    "iterable_plus_map": lambda L: type(stream(L, [1]) + RangeDataset(2)).__name__,
    # StackDataset
    "stack_tuple": lambda L: (lambda s: (len(s), s[1], s.__getitems__([0, 2])))(
        L.utils.data.StackDataset(RangeDataset(3), list("abc"), ListItems([7, 8, 9]))),
    "stack_dict": lambda L: (lambda s: (len(s), s[2], s.__getitems__([1, 0])))(
        L.utils.data.StackDataset(x=RangeDataset(3), y=ListItems(list("xyz")))),
    "stack_both": lambda L: L.utils.data.StackDataset(RangeDataset(2), y=RangeDataset(2)),
    "stack_none": lambda L: L.utils.data.StackDataset(),
    "stack_size_mismatch": lambda L: L.utils.data.StackDataset(RangeDataset(2), RangeDataset(3)),
    "stack_dict_size_mismatch": lambda L: L.utils.data.StackDataset(a=RangeDataset(2), b=RangeDataset(3)),
    "stack_nested_short": lambda L: L.utils.data.StackDataset(ListItems([1, 2], short=True)).__getitems__([0, 1]),
    "stack_dict_nested_short": lambda L: L.utils.data.StackDataset(
        a=ListItems([1, 2], short=True)).__getitems__([0, 1]),
    "stack_out_of_range": lambda L: L.utils.data.StackDataset(RangeDataset(2))[5],
    "stack_in_loader": lambda L: list(L.utils.data.DataLoader(
        L.utils.data.StackDataset(a=RangeDataset(5), b=ListItems(list("vwxyz"))), batch_size=2)),
    # TensorDataset
    "tensor_dataset": lambda L: (lambda t: (len(t), t[1], t[-1], t[0:2], t[[0, 2]]))(
        L.utils.data.TensorDataset(L.arange(3), L.arange(6).reshape(3, 2))),
    "tensor_dataset_mismatch": lambda L: L.utils.data.TensorDataset(L.arange(3), L.arange(4)),
    "tensor_dataset_empty_len": lambda L: len(L.utils.data.TensorDataset()),
    "tensor_dataset_scalar": lambda L: L.utils.data.TensorDataset(L.tensor(1.0)),
    "tensor_dataset_out_of_range": lambda L: L.utils.data.TensorDataset(L.arange(3))[3],
    "tensor_dataset_loader": lambda L: list(L.utils.data.DataLoader(
        L.utils.data.TensorDataset(L.arange(5), L.arange(5.0)), batch_size=2, shuffle=False)),
    # Bases
    "dataset_getitem": lambda L: L.utils.data.Dataset()[0],
    "dataset_len": lambda L: len(L.utils.data.Dataset()),
    "dataset_add": lambda L: (lambda c: (type(c).__name__, len(c)))(L.utils.data.Dataset() + []),
    "dataset_iter": lambda L: list(L.utils.data.Dataset()),
    "iterable_dataset_iter": lambda L: iter(L.utils.data.IterableDataset()),
    "iterable_dataset_len": lambda L: len(L.utils.data.IterableDataset()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dataset(name: str) -> None:
    assert outcome(lambda: CASES[name](ember)) == outcome(lambda: CASES[name](torch))


def test_deprecated_name_warns_future_warning() -> None:
    # FutureWarning, unlike DeprecationWarning, is shown to users by default.
    with pytest.warns(FutureWarning):
        _ = ember.utils.data.ConcatDataset([[1]]).cummulative_sizes


@pytest.mark.parametrize("name", ["Dataset", "IterableDataset", "Subset", "ConcatDataset", "TensorDataset",
                                  "StackDataset", "ChainDataset", "Sampler", "SequentialSampler", "RandomSampler",
                                  "BatchSampler", "SubsetRandomSampler", "WeightedRandomSampler",
                                  "DistributedSampler", "DataLoader"])
def test_generic_parameters(name: str) -> None:
    # Annotations such as StackDataset[dict] or DistributedSampler[int] are evaluated at run
    # time (e.g. by dataclasses and pydantic): the same classes must be generic.
    ours = getattr(ember.utils.data, name).__dict__.get("__parameters__", ())
    theirs = getattr(torch.utils.data, name).__dict__.get("__parameters__", ())
    assert len(ours) == len(theirs)
    if theirs:
        assert outcome(lambda: getattr(ember.utils.data, name)[int])[0] == "ok"
