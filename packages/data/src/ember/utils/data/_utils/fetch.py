"""``torch.utils.data._utils.fetch``: ember's fetchers (map-style and iterable) under PyTorch's names."""

from __future__ import annotations

from ember.utils.data._fetch import IterableFetcher, MapFetcher

_MapDatasetFetcher = MapFetcher
_IterableDatasetFetcher = IterableFetcher
