"""Model averagers: when to average the parameters across ranks (every ``period`` steps
after a warm-up, for ``PeriodicModelAverager``)."""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from ...process_group import GroupMember
from . import utils

__all__ = ["ModelAverager", "PeriodicModelAverager"]


class ModelAverager(ABC):
    """Base class: a step counter and the group to average over (the default group if
    None; ``TypeError`` when there is none)."""

    def __init__(self, process_group: Any = None) -> None:
        group = process_group if process_group is not None else GroupMember.WORLD
        if group is None:
            raise TypeError("Invariant encountered: value was None when it should not be")
        self.process_group = group
        self.step = 0

    @abstractmethod
    def average_parameters(self, params: Iterable[Any]) -> None:
        raise NotImplementedError


class PeriodicModelAverager(ModelAverager):
    """Averages the parameters every ``period`` calls once ``warmup_steps`` calls have gone:
    at steps ``warmup_steps``, ``warmup_steps + period``... (counting calls from 0).

    Args:
        period (int): calls between averagings (1 averages every step: DDP alone does that
            for less communication, hence a warning).
        warmup_steps (int): calls without averaging first.
        process_group: the group to average over (the default group if None).

    Example::

        >>> averager = PeriodicModelAverager(period=4, warmup_steps=100)
        >>> for step in range(200):
        ...     optimizer.zero_grad()
        ...     loss_fn(model(inputs), labels).backward()
        ...     optimizer.step()
        ...     averager.average_parameters(model.parameters())
    """

    def __init__(self, period: Any, warmup_steps: int = 0, process_group: Any = None) -> None:
        super().__init__(process_group)
        if warmup_steps < 0:
            raise ValueError("Arg ``warmup_steps`` must be a non-negative number.")
        self.warmup_steps = warmup_steps
        if period < 1:
            raise ValueError("Arg ``period`` must be a positive value.")
        if period == 1:
            warnings.warn(
                "When period is 1, no need to use model averaging because the communication "
                "cost of all-reducing parameters will be no less than the cost of all-reducing "
                "gradients by DistributedDataParallel in the backward pass. Therefore, only "
                "DistributedDataParallel should be used for this case.", stacklevel=2)
        self.period = period

    def average_parameters(self, params: Iterable[Any]) -> None:
        """Counts a step and, when it is an averaging step, averages those of ``params`` (or
        of parameter groups' params) that have a gradient."""
        if (self.step >= self.warmup_steps
                and (self.step - self.warmup_steps) % self.period == 0):
            utils.average_parameters_or_parameter_groups(params, self.process_group)
        self.step += 1
