"""The geometric distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._probs_logits import _lazy_logits_and_probs, _ProbsOrLogits
from .distribution import Distribution
from .utils import _bce_with_logits, broadcast_all

__all__ = ["Geometric"]


class Geometric(_ProbsOrLogits, Distribution):
    """Geometric distribution: the number of failures before the first success in independent
    trials with success probability ``probs`` (or log-odds ``logits``); mass
    ``(1 - p)^k p`` for ``k = 0, 1, ...``.

    Example::

        >>> Geometric(ember.tensor(0.5)).mean
        tensor(1.)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Geometric:
        return self._expand_probs_or_logits(Geometric, batch_shape, _instance)

    @property
    def mean(self) -> Any:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Any:
        return ember.zeros_like(self.probs)

    @property
    def variance(self) -> Any:
        return (1.0 / self.probs - 1.0) / self.probs

    logits, probs = _lazy_logits_and_probs("Log-odds of a success.", "Probability of a success.")

    def sample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        tiny = ember.finfo(self.probs.dtype).tiny
        with ember.no_grad():
            u = ember.rand(tuple(shape), dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / ember.log1p(-self.probs)).floor()

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = ember.where((probs == 1) & (value == 0), ember.zeros_like(probs), probs)
        return value * ember.log1p(-probs) + self.probs.log()

    def entropy(self) -> Any:
        return _bce_with_logits(self.logits, self.probs) / self.probs
