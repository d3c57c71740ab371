"""``torch.utils.data._utils.pin_memory``: the batch pinning helper under its PyTorch path."""

from __future__ import annotations

from ember.utils.data._pin_memory import pin_memory

__all__ = ["pin_memory"]
