"""The ``ember-run`` agent: rendezvous, worker spawning, monitoring and restarts
(``torch.distributed.launcher`` + ``torch.distributed.elastic.agent``)."""

from __future__ import annotations

from .agent import launch_agent
from .config import LaunchConfig, Std

__all__ = ["LaunchConfig", "Std", "launch_agent"]
