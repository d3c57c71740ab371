"""Data loading: datasets, samplers, collation and the :class:`DataLoader`.

Mirrors :mod:`torch.utils.data`. Map-style datasets (:class:`Dataset`) are indexed by
keys from a :class:`Sampler`; iterable-style datasets (:class:`IterableDataset`) stream.
The :class:`DataLoader` batches either kind, in this process or in worker processes that
hand their batches back through shared memory (``ember.multiprocessing``).
"""

from __future__ import annotations

from ember.utils.data._collate import collate, default_collate, default_collate_fn_map, default_convert
from ember.utils.data._worker import WorkerInfo, get_worker_info
from ember.utils.data.dataloader import DataLoader, _DatasetKind
from ember.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from ember.utils.data.distributed import DistributedSampler
from ember.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
    "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "collate",
    "default_collate", "default_collate_fn_map", "default_convert", "get_worker_info", "random_split",
]
_ = _DatasetKind  # importable as ember.utils.data._DatasetKind, as in PyTorch
# torch.utils.data._utils.collate etc., the import paths older code uses (loaded after the files above)
from ember.utils.data import _utils as _utils  # noqa: E402
