"""Built-in DDP communication hooks: ``default_hooks``, ``powerSGD_hook``, ``debugging_hooks``
and ``post_localSGD_hook``."""

from __future__ import annotations

from . import debugging_hooks, default_hooks, post_localSGD_hook, powerSGD_hook

__all__ = ["debugging_hooks", "default_hooks", "post_localSGD_hook", "powerSGD_hook"]
