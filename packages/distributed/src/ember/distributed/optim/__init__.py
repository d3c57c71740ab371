"""``ember.distributed.optim``: ``ZeroRedundancyOptimizer`` (optimizer state sharded over the
data-parallel ranks). ``DistributedOptimizer`` needs RPC, which ember does not implement."""

from __future__ import annotations

from typing import Any

from .zero_redundancy_optimizer import ZeroRedundancyOptimizer


class DistributedOptimizer:
    """torch.distributed.optim.DistributedOptimizer (an optimizer over RPC remote references):
    not implemented in ember, which has no RPC framework."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("ember: torch.distributed.optim.DistributedOptimizer is not "
                                  "implemented (it needs torch.distributed.rpc)")


__all__ = ["DistributedOptimizer", "ZeroRedundancyOptimizer"]
