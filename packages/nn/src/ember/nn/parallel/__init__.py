"""Data parallelism (torch.nn.parallel): ``DataParallel`` (single process, one thread per GPU;
on the CPU it calls the module as it is) with its functional pieces ``replicate``, ``scatter``,
``parallel_apply``, ``gather`` and ``data_parallel``; ``DistributedDataParallel`` comes from
ember-distributed (loaded on first use, with an error naming that distribution when it is
absent)."""

from __future__ import annotations

from typing import Any

from ember.nn.parallel.data_parallel import DataParallel, data_parallel
from ember.nn.parallel.parallel_apply import parallel_apply
from ember.nn.parallel.replicate import replicate
from ember.nn.parallel.scatter_gather import gather, scatter

__all__ = ["replicate", "scatter", "parallel_apply", "gather", "data_parallel", "DataParallel",
           "DistributedDataParallel"]


def __getattr__(name: str) -> Any:
    if name == "DistributedDataParallel":
        from ember._siblings import import_sibling

        import_sibling("ember.distributed")
        from ember.distributed._ddp.module import DistributedDataParallel

        return DistributedDataParallel
    raise AttributeError(f"module 'ember.nn.parallel' has no attribute '{name}'")
