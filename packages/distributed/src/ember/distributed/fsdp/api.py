"""FSDP1's configuration types (torch.distributed.fsdp.api): the sharding, state-dict and
prefetch enums and the plain-data config classes. ember implements FSDP2 (``fully_shard``);
these exist so FSDP1-era code and checkpoints that name them import and compare."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ember.nn.modules.normalization import _BatchNorm


class ShardingStrategy(enum.Enum):
    """How FSDP1 shards: FULL_SHARD (parameters, gradients, optimizer state), SHARD_GRAD_OP
    (gradients and optimizer state), NO_SHARD (DDP-like), HYBRID_SHARD (full shard within a
    node, replicate across nodes), _HYBRID_SHARD_ZERO2."""

    FULL_SHARD = 1
    SHARD_GRAD_OP = 2
    NO_SHARD = 3
    HYBRID_SHARD = 4
    _HYBRID_SHARD_ZERO2 = 5


class BackwardPrefetch(enum.Enum):
    """When FSDP1 prefetches the next all-gather in backward: before (BACKWARD_PRE) or after
    (BACKWARD_POST) the current gradient computation."""

    BACKWARD_PRE = 1
    BACKWARD_POST = 2


class StateDictType(enum.Enum):
    """The kind of state dict FSDP1 produces: FULL_STATE_DICT, LOCAL_STATE_DICT (flat shards)
    or SHARDED_STATE_DICT."""

    FULL_STATE_DICT = 1
    LOCAL_STATE_DICT = 2
    SHARDED_STATE_DICT = 3


class OptimStateKeyType(enum.Enum):
    """How FSDP1's optimizer state dicts key parameters: by name or by id."""

    PARAM_NAME = 1
    PARAM_ID = 2


@dataclass
class CPUOffload:
    """FSDP1's CPU offloading: ``offload_params`` keeps parameters (and gradients) on CPU."""

    offload_params: bool = False


@dataclass
class MixedPrecision:
    """FSDP1's mixed precision: dtypes of the parameters in compute (``param_dtype``), of the
    gradient reduction (``reduce_dtype``) and of the buffers (``buffer_dtype``), and the casting
    options; modules of ``_module_classes_to_ignore`` (batch norms) stay in full precision."""

    param_dtype: Any = None
    reduce_dtype: Any = None
    buffer_dtype: Any = None
    keep_low_precision_grads: bool = False
    cast_forward_inputs: bool = False
    cast_root_forward_inputs: bool = True
    _module_classes_to_ignore: Sequence[type] = (_BatchNorm,)


@dataclass
class StateDictConfig:
    """Base of the state-dict configs: ``offload_to_cpu`` moves the tensors to CPU."""

    offload_to_cpu: bool = False


@dataclass
class FullStateDictConfig(StateDictConfig):
    """FULL_STATE_DICT's config: ``rank0_only`` keeps the full state on rank 0 only."""

    rank0_only: bool = False


@dataclass
class LocalStateDictConfig(StateDictConfig):
    """LOCAL_STATE_DICT's config."""


@dataclass
class ShardedStateDictConfig(StateDictConfig):
    """SHARDED_STATE_DICT's config (``_use_dtensor``: shards as DTensors)."""

    _use_dtensor: bool = False


@dataclass
class OptimStateDictConfig:
    """Base of the optimizer state-dict configs: ``offload_to_cpu`` (True by default)."""

    offload_to_cpu: bool = True


@dataclass
class FullOptimStateDictConfig(OptimStateDictConfig):
    """The full optimizer state dict's config: ``rank0_only`` keeps it on rank 0 only."""

    rank0_only: bool = False


@dataclass
class LocalOptimStateDictConfig(OptimStateDictConfig):
    """The local optimizer state dict's config (no offloading by default)."""

    offload_to_cpu: bool = False


@dataclass
class ShardedOptimStateDictConfig(OptimStateDictConfig):
    """The sharded optimizer state dict's config (``_use_dtensor``: shards as DTensors)."""

    _use_dtensor: bool = False


@dataclass
class StateDictSettings:
    """A state-dict type with its model and optimizer configs."""

    state_dict_type: StateDictType
    state_dict_config: StateDictConfig
    optim_state_dict_config: OptimStateDictConfig
