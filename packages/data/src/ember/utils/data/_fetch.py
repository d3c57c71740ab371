"""Fetchers: turn one item from the (batch) sampler into one collated result. Used as is
by the single-process iterator and inside each worker process."""

from __future__ import annotations

from typing import Any

from ember.utils.data._collate import default_collate


class MapFetcher:
    """Map-style: ``collate_fn([dataset[i] for i in indices])`` (or one ``__getitems__``
    call when the dataset has it), or ``collate_fn(dataset[key])`` without batching."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Any, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        getitems = getattr(dataset, "__getitems__", None)
        self._getitems = getitems if getitems else None
        # With the default collate, a TensorDataset (or a Subset of one) can produce the
        # collated batch directly: one gather per tensor, no per-sample tuples.
        gather = getattr(dataset, "_gather_collated", None)
        self._gather = gather if auto_collation and collate_fn is default_collate else None

    def fetch(self, index: Any) -> Any:
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if self._gather is not None:
            batch = self._gather(index)
            if batch is not None:
                return batch
        if self._getitems is not None:
            data = self._getitems(index)
        else:
            dataset = self.dataset
            data = [dataset[i] for i in index]
        return self.collate_fn(data)


class IterableFetcher:
    """Iterable-style: the next ``len(index)`` samples of the stream, collated (a
    shorter final batch unless ``drop_last``), or the next sample without batching."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Any, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def create_fetcher(iterable: bool, dataset: Any, auto_collation: bool, collate_fn: Any,
                   drop_last: bool) -> MapFetcher | IterableFetcher:
    cls = IterableFetcher if iterable else MapFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
