"""``ember.distributed.fsdp``: FSDP2 ``fully_shard`` (parameters sharded as DTensors, one
all-gather and one reduce-scatter per group) with its policies and ``FSDPModule``."""

from __future__ import annotations

from ._api import CPUOffloadPolicy, MixedPrecisionPolicy, OffloadPolicy
from ._fully_shard import FSDPModule, UnshardHandle, fully_shard, register_fsdp_forward_method

__all__ = ["CPUOffloadPolicy", "FSDPModule", "MixedPrecisionPolicy", "OffloadPolicy",
           "UnshardHandle", "fully_shard", "register_fsdp_forward_method"]
