"""The negative binomial distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._probs_logits import _lazy_logits_and_probs, _ParamTensor, _ProbsOrLogits
from .distribution import Distribution
from .gamma import Gamma
from .utils import _softplus, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_ProbsOrLogits, _ParamTensor, Distribution):
    """Negative binomial distribution: the number of successes before ``total_count`` failures in
    independent trials with success probability ``probs`` (or log-odds ``logits``). Sampled as a
    Poisson with a gamma-distributed rate.

    Example::

        >>> NegativeBinomial(ember.tensor(2.0), probs=ember.tensor(0.5)).mean
        tensor(2.)
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        batch_shape = self._set_probs_or_logits(probs, logits, total_count)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> NegativeBinomial:
        return self._expand_probs_or_logits(NegativeBinomial, batch_shape, _instance, ("total_count",))

    @property
    def mean(self) -> Any:
        return self.total_count * ember.exp(self.logits)

    @property
    def mode(self) -> Any:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Any:
        return self.mean / ember.sigmoid(-self.logits)

    logits, probs = _lazy_logits_and_probs("Log-odds of a success.", "Probability of a success.")

    @lazy_property
    def _gamma(self) -> Gamma:
        return Gamma(concentration=self.total_count, rate=ember.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape: Any = ()) -> Any:
        with ember.no_grad():
            return ember.poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        r = self.total_count
        # r log(1 - p) + k log p, with log p = -softplus(-logits) and log(1 - p) = -softplus(logits)
        unnormalized = -r * _softplus(self.logits) - value * _softplus(-self.logits)
        log_norm = -ember.lgamma(r + value) + ember.lgamma(1.0 + value) + ember.lgamma(r)
        log_norm = ember.where(r + value == 0.0, ember.zeros_like(log_norm), log_norm)
        return unnormalized - log_norm
