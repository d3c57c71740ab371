"""The binomial distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._probs_logits import _lazy_logits_and_probs, _ParamTensor, _ProbsOrLogits
from .distribution import Distribution
from .utils import _softplus

__all__ = ["Binomial"]


class Binomial(_ProbsOrLogits, _ParamTensor, Distribution):
    """Binomial distribution: the number of successes in ``total_count`` independent trials with
    success probability ``probs`` (or log-odds ``logits``; give exactly one).

    Example::

        >>> Binomial(4, ember.tensor(0.5)).mean
        tensor(2.)
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        batch_shape = self._set_probs_or_logits(probs, logits, total_count)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Binomial:
        return self._expand_probs_or_logits(Binomial, batch_shape, _instance, ("total_count",))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Any:
        return self.total_count * self.probs

    @property
    def mode(self) -> Any:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Any:
        return self.total_count * self.probs * (1 - self.probs)

    logits, probs = _lazy_logits_and_probs("Log-odds of a success.", "Probability of a success.")

    def sample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        n, k = self.total_count, value
        log_choose = ember.lgamma(n + 1) - ember.lgamma(k + 1) - ember.lgamma(n - k + 1)
        # k log p + (n - k) log(1 - p) = k * logits - n * softplus(logits)
        return log_choose + k * self.logits - n * _softplus(self.logits)

    def _homogeneous_count(self, what: str) -> int:
        count = int(self.total_count.max())
        if not bool((self.total_count.min() == count).all()):
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return count

    def entropy(self) -> Any:
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(ember.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Any:
        count = self._homogeneous_count("enumerate_support")
        values = ember.arange(1 + count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
