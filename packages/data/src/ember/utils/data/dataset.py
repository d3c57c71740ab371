"""Datasets: the map-style and iterable-style bases and the standard combinators."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import ember

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")
# A StackDataset's samples are tuples (positional datasets) or dicts (keyword datasets).
T_stack = TypeVar("T_stack", tuple[Any, ...], dict[str, Any])


class Dataset(Generic[T_co]):
    """A map from keys (usually the integers from 0 to ``len - 1``) to samples.

    Subclasses implement ``__getitem__`` and usually ``__len__`` (the default samplers and
    ``len(DataLoader)`` need it). They may also implement ``__getitems__(indices)`` to
    load a whole batch in one call. ``a + b`` concatenates two datasets.
    """

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A stream of samples: subclasses implement ``__iter__``.

    With ``num_workers > 0`` every worker iterates its own copy of the dataset, so the
    samples come once per worker unless ``__iter__`` shards the stream using
    :func:`get_worker_info` (``info.id`` out of ``info.num_workers``).
    """

    def __add__(self, other: Dataset[T_co]) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple[Any, ...]]):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; all tensors share ``size(0)``."""

    tensors: tuple[Any, ...]

    def __init__(self, *tensors: Any) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Any, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)

    def _gather_collated(self, indices: Sequence[Any]) -> list[Any] | None:
        # What default_collate([self[i] for i in indices]) returns, built by one gather
        # per tensor instead of len(indices) samples; None where that is not the same.
        if type(self).__getitem__ is not TensorDataset.__getitem__ or not self.tensors:
            return None
        from ember.utils.data._gather import gather_rows

        return gather_rows(self.tensors, indices)


class StackDataset(Dataset[T_stack]):
    """Zips datasets of equal length: positional datasets give tuple samples, keyword
    datasets give dict samples (``StackDataset(a=x, b=y)[i] == {'a': x[i], 'b': y[i]}``)."""

    datasets: tuple[Any, ...] | dict[str, Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) "
                             "like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        members = list(args) if args else list(kwargs.values())
        self._length = len(members[0])
        if any(len(d) != self._length for d in members):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list[Any]) -> list[Any]:
        named = isinstance(self.datasets, dict)
        members = self.datasets.items() if named else enumerate(self.datasets)  # type: ignore[union-attr]
        columns: list[tuple[Any, list[Any]]] = []
        for key, d in members:
            if callable(getattr(d, "__getitems__", None)):
                items = d.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch."
                                     f" Expected {len(indices)}, got {len(items)}")
            else:
                items = [d[i] for i in indices]
            columns.append((key, items))
        if named:
            return [{k: col[j] for k, col in columns} for j in range(len(indices))]
        return [tuple(col[j] for _, col in columns) for j in range(len(indices))]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """The datasets one after the other; supports negative indices."""

    datasets: list[Dataset[T_co]]
    cumulative_sizes: list[int]

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        """The running totals of the lengths of ``sequence``'s datasets: where each one ends in the
        concatenation."""
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self) -> list[int]:
        # FutureWarning (shown by default), with PyTorch's text: the old name is user-facing.
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`", FutureWarning,
                      stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Iterable datasets chained lazily, one after the other."""

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)  # type: ignore[arg-type]
        return total


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``: ``subset[i] == dataset[indices[i]]``."""

    dataset: Dataset[T_co]
    indices: Sequence[int]

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            # The DataLoader calls __getitems__, which would silently bypass the override.
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx: Any) -> T_co:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[T_co]:
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])  # type: ignore[attr-defined]
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)

    def _gather_collated(self, indices: Sequence[Any]) -> list[Any] | None:
        gather = getattr(self.dataset, "_gather_collated", None)
        if (gather is None or type(self).__getitems__ is not Subset.__getitems__
                or callable(getattr(self.dataset, "__getitems__", None))):
            return None
        return gather([self.indices[i] for i in indices])


def _fraction_lengths(n: int, fractions: Sequence[float]) -> list[int]:
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    # The floor leaves a remainder: hand it out one by one, from the first split on.
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                          stacklevel=3)
    return lengths


_DEFAULT_GENERATOR = getattr(ember, "default_generator", None)  # the global RNG, as in PyTorch


def random_split(dataset: Dataset[T], lengths: Sequence[int | float],
                 generator: Any = _DEFAULT_GENERATOR) -> list[Subset[T]]:
    """Split ``dataset`` into non-overlapping random subsets of the given ``lengths``
    (ints summing to ``len(dataset)``, or fractions summing to 1)."""
    n = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _fraction_lengths(n, lengths)
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = ember.randperm(sum(lengths), generator=generator).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[offset:offset + int(length)]))
        offset += int(length)
    return out
