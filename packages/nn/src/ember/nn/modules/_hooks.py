"""``RemovableHandle``: what every ``register_*_hook`` returns. The class is
``ember.utils.hooks.RemovableHandle`` (as ``torch.utils.hooks``); re-exported here for its users."""

from __future__ import annotations

from ember.utils.hooks import RemovableHandle

__all__ = ["RemovableHandle"]
