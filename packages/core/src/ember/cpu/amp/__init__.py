"""``ember.cpu.amp``: PyTorch's deprecated CPU spellings of ``ember.amp``."""

from __future__ import annotations

import warnings
from typing import Any

from ember._lib import _C
from ember.amp import autocast as _autocast
from ember.amp import grad_scaler as _grad_scaler

__all__ = ["autocast", "GradScaler"]


class autocast(_autocast):
    """``ember.cpu.amp.autocast(args...)`` is ``ember.amp.autocast("cpu", args...)`` (deprecated)."""

    def __init__(self, enabled: bool = True, dtype: Any = _C.bfloat16, cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    """``ember.cpu.amp.GradScaler(args...)`` is ``ember.amp.GradScaler("cpu", args...)`` (deprecated)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)
