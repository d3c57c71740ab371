"""KinetoStepTracker: one global step count fed by several step sources (profiler, optimizers).

Each requester (``"ProfilerStep"``, ``"Optimizer"``...) keeps its own count; the global step is
the largest, so two sources stepping once each per iteration advance it once, not twice. torch
passes each advance on to Kineto's on-demand tracing; ember has no Kineto, so the count is all
there is.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable
from typing import Any
from warnings import warn

__all__ = ["KinetoStepTracker", "register_optimizer_step_post_hook"]


class KinetoStepTracker:
    """Class-level step counters per requester; ``current_step()`` is the largest count reached.

    ``profile`` registers ``"ProfilerStep"`` while it runs and, when the environment variable
    ``KINETO_USE_DAEMON`` is set, counts its ``step()`` calls here; with that variable set,
    importing ``ember.profiler`` also makes every optimizer ``step()`` count as ``"Optimizer"``.
    """

    _current_step = 0
    _step_dict: dict[str, int] = defaultdict(int)

    @classmethod
    def init_step_count(cls, requester: str) -> None:
        """Start (or restart) ``requester``'s count at the current global step."""
        cls._step_dict[requester] = cls._current_step

    @classmethod
    def erase_step_count(cls, requester: str) -> bool:
        """Forget ``requester``; True if it had a count."""
        return cls._step_dict.pop(requester, None) is not None

    @classmethod
    def increment_step(cls, requester: str) -> int:
        """Advance ``requester``'s count by one (an unknown requester starts at the global step)
        and return the global step, which moves up when this count passes it."""
        if requester not in cls._step_dict:
            cls.init_step_count(requester)
        cls._step_dict[requester] += 1
        new_step = max(cls._step_dict.values())
        if new_step > cls._current_step:
            if new_step - cls._current_step > 1:
                # Only reachable through init/erase games: worth flagging, as torch does.
                warn(
                    "Profiler step count has increased more than 1 - "
                    f"current_step = {cls._current_step} step dict =  {cls._step_dict}",
                    stacklevel=2,
                )
            cls._current_step = new_step
        return cls._current_step

    @classmethod
    def current_step(cls) -> int:
        """The global step: the largest count any requester has reached."""
        return cls._current_step


def daemon_steps() -> bool:
    """Whether steps are counted (torch does so only for its Kineto daemon: KINETO_USE_DAEMON)."""
    return bool(os.environ.get("KINETO_USE_DAEMON", ""))


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> Any:
    """Register ``hook(optimizer, args, kwargs)`` to run after every optimizer's ``step()``
    (``ember.optim.optimizer.register_optimizer_step_post_hook``); returns its removable handle."""
    from ember.optim.optimizer import register_optimizer_step_post_hook as register

    return register(hook)


def _optimizer_post_hook(optimizer: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Count an optimizer step as the ``"Optimizer"`` requester's."""
    KinetoStepTracker.increment_step("Optimizer")


def install_optimizer_hook() -> None:
    """At import, as torch: with KINETO_USE_DAEMON set, optimizer steps advance the tracker."""
    if not daemon_steps():
        return
    try:
        register_optimizer_step_post_hook(_optimizer_post_hook)
    except ImportError:  # ember-nn (and its optimizers) not installed
        pass
