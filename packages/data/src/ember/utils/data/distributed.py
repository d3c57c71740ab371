"""``DistributedSampler``: each of ``num_replicas`` processes reads its own share."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, TypeVar

import ember
from ember.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]

T_co = TypeVar("T_co", covariant=True)


def _dist() -> Any:
    try:
        import ember.distributed as dist
    except ImportError:
        raise RuntimeError("Requires distributed package to be available") from None
    # ember-distributed may be installed before it provides is_available().
    is_available = getattr(dist, "is_available", None)
    if is_available is None or not is_available():
        raise RuntimeError("Requires distributed package to be available")
    return dist


class DistributedSampler(Sampler[T_co]):
    """The keys of ``dataset`` split between ``num_replicas`` ranks.

    Every rank builds the same ordering (a permutation seeded with ``seed + epoch`` when
    ``shuffle``, else ``range``), pads it by repeating its start so that it divides evenly
    (or truncates it, with ``drop_last``), and takes every ``num_replicas``-th key from
    position ``rank``. The padding duplicates samples, which skews evaluation metrics
    slightly. Call :meth:`~DistributedSampler.set_epoch` before each epoch, or every epoch has the same order.
    """

    def __init__(self, dataset: Any, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None:
            num_replicas = _dist().get_world_size()
        if rank is None:
            rank = _dist().get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            # Drop the tail so that every rank gets the same number of distinct samples.
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[T_co]:
        n = len(self.dataset)
        if self.shuffle:
            g = ember.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = ember.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[: self.total_size]
        if len(indices) != self.total_size:  # the dataset changed size under us
            raise AssertionError(f"Number of indices ({len(indices)}) does not match total_size "
                                 f"({self.total_size})")
        mine = indices[self.rank:self.total_size:self.num_replicas]
        if len(mine) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(mine)}) does not match "
                                 f"num_samples ({self.num_samples})")
        return iter(mine)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch: with ``shuffle``, the order is seeded with ``seed + epoch``."""
        self.epoch = epoch
