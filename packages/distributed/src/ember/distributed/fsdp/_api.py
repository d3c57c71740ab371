"""The policies of ``fully_shard``: mixed precision and offloading."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MixedPrecisionPolicy:
    """``param_dtype``: dtype of the unsharded parameters forward and backward compute with;
    ``reduce_dtype``: dtype of the gradient reduce-scatter (default: ``param_dtype``);
    ``output_dtype``: cast of the module's floating outputs; ``cast_forward_inputs``: cast
    floating inputs to ``param_dtype``. Sharded parameters and optimizer state keep their
    own dtype."""

    param_dtype: Any = None
    reduce_dtype: Any = None
    output_dtype: Any = None
    cast_forward_inputs: bool = True


@dataclass
class OffloadPolicy:
    """No offloading (the default)."""


@dataclass
class CPUOffloadPolicy(OffloadPolicy):
    """Sharded parameters and gradients in CPU memory, the optimizer step on CPU. ember's
    tensors already live in CPU memory, so this is the default behaviour; ``pin_memory`` has
    no effect without an accelerator."""

    pin_memory: bool = True
