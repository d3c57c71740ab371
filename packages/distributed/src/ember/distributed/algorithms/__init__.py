"""DDP algorithms: communication hooks and Join (torch.distributed.algorithms)."""

from __future__ import annotations

from .join import Join, Joinable, JoinHook

__all__ = ["Join", "JoinHook", "Joinable"]
