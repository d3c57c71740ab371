"""Data parallelism (torch.nn.parallel): ``DistributedDataParallel`` comes from ember-distributed
(loaded on first use, with an error naming that distribution when it is absent);
``DataParallel`` is single-process and, on the CPU, calls the module as it is."""

from __future__ import annotations

from typing import Any

from ember.nn.parallel.data_parallel import DataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]


def __getattr__(name: str) -> Any:
    if name == "DistributedDataParallel":
        from ember._siblings import import_sibling

        import_sibling("ember.distributed")
        from ember.distributed._ddp.module import DistributedDataParallel

        return DistributedDataParallel
    raise AttributeError(f"module 'ember.nn.parallel' has no attribute '{name}'")
