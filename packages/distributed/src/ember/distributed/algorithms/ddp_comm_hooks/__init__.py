"""Built-in DDP communication hooks (``default_hooks``)."""

from __future__ import annotations

from . import default_hooks

__all__ = ["default_hooks"]
