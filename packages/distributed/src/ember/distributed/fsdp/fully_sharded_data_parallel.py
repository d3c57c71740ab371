"""FSDP1's ``FullyShardedDataParallel`` wrapper: not implemented in ember, which implements
FSDP2 (``fully_shard``), PyTorch's recommended replacement."""

from __future__ import annotations

from typing import Any

_MESSAGE = ("ember: torch.distributed.fsdp.FullyShardedDataParallel (FSDP1) is not implemented; "
            "use ember.distributed.fsdp.fully_shard (FSDP2): call fully_shard(layer) on each "
            "layer, then fully_shard(model)")


class FullyShardedDataParallel:
    """FSDP1's module wrapper. ember implements FSDP2 instead: constructing one raises
    NotImplementedError pointing to ``fully_shard``; the static state-dict helpers raise the
    same."""

    def __init__(self, module: Any, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_MESSAGE)

    @staticmethod
    def state_dict_type(*args: Any, **kwargs: Any) -> Any:
        """FSDP1's state-dict context manager: not implemented (see the class)."""
        raise NotImplementedError(_MESSAGE)

    @staticmethod
    def set_state_dict_type(*args: Any, **kwargs: Any) -> Any:
        """FSDP1's state-dict setting: not implemented (see the class)."""
        raise NotImplementedError(_MESSAGE)

    @staticmethod
    def optim_state_dict(*args: Any, **kwargs: Any) -> Any:
        """FSDP1's optimizer state dict: not implemented (see the class)."""
        raise NotImplementedError(_MESSAGE)

    @staticmethod
    def clip_grad_norm_(*args: Any, **kwargs: Any) -> Any:
        """FSDP1's gradient clipping: not implemented (see the class)."""
        raise NotImplementedError(_MESSAGE)
