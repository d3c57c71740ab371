"""``Join``: training with uneven inputs across ranks (torch.distributed.algorithms.join).

Each iteration, every rank still training all-reduces a 1 (``notify_join_context``); a rank that
ran out of inputs enters the loop in ``__exit__``, all-reduces 0, and while others remain it
"shadows" their collectives through its joinables' join hooks, so nobody waits forever.
"""

from __future__ import annotations

import abc
from typing import Any

import ember

from .. import collectives as C


class JoinHook:
    """What a joined rank runs per shadowed iteration (``main_hook``) and once all ranks have
    joined (``post_hook``)."""

    def main_hook(self) -> None:
        pass

    def post_hook(self, is_last_joiner: bool) -> None:
        pass


class Joinable(abc.ABC):
    @abc.abstractmethod
    def join_hook(self, **kwargs: Any) -> JoinHook: ...

    @property
    @abc.abstractmethod
    def join_device(self) -> Any: ...

    @property
    @abc.abstractmethod
    def join_process_group(self) -> Any: ...


class Join:
    """Context manager over the training loop of ``joinables``."""

    _current: Join | None = None

    def __init__(self, joinables: list[Joinable], enable: bool = True,
                 throw_on_early_termination: bool = False, **kwargs: Any) -> None:
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._hooks = [j.join_hook(**kwargs) for j in joinables]
        self._enable = enable
        self._throw = throw_on_early_termination
        self._group = joinables[0].join_process_group
        for j in joinables:
            j._join_config = _JoinConfig(enable, throw_on_early_termination, True)  # type: ignore[attr-defined]

    def __enter__(self) -> Join:
        if Join._current is not None:
            raise ValueError("Join contexts cannot be nested")
        if self._enable:
            Join._current = self
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        Join._current = None
        if not self._enable or exc_type is not None:
            return
        pg = C._member(self._group)
        me = pg.rank() if pg is not None else 0
        while True:
            remaining = ember.zeros(1)
            C.all_reduce(remaining, group=self._group)
            if remaining.item() == 0:
                break
            if self._throw:
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing "
                                   "across all ranks.")
            for h in self._hooks:
                h.main_hook()
        # The last joiner is the highest rank that joined last; every rank agrees on it.
        last = ember.tensor([float(me)])
        C.all_reduce(last, op=C.ReduceOp.MAX, group=self._group)
        for h in self._hooks:
            h.post_hook(int(last.item()) == me)

    @staticmethod
    def notify_join_context(joinable: Joinable) -> Any:
        """Called by a joinable once per iteration: this rank is still training."""
        ctx = Join._current
        if ctx is None or joinable not in ctx._joinables:
            return None
        one = ember.ones(1)
        C.all_reduce(one, group=ctx._group)
        if ctx._throw and one.item() < (C._member(ctx._group).size()):
            raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across "
                               "all ranks.")
        return None


class _JoinConfig:
    def __init__(self, enable: bool, throw_on_early_termination: bool, is_first_joinable: bool) -> None:
        self.enable = enable
        self.throw_on_early_termination = throw_on_early_termination
        self.is_first_joinable = is_first_joinable
