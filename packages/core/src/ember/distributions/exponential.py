"""The exponential distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential distribution with density ``rate * exp(-rate * x)`` on ``x >= 0``.

    Example::

        >>> Exponential(ember.tensor(2.0)).mean
        tensor(0.5000)
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self) -> Any:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Any:
        return ember.zeros_like(self.rate)

    @property
    def stddev(self) -> Any:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Any:
        return self.rate.pow(-2)

    def __init__(self, rate: Any, validate_args: Any = None) -> None:
        batch_shape = self._set_broadcast_params(rate=rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Exponential:
        return self._expand_params(Exponential, batch_shape, _instance, ("rate",))

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        draws = ember.empty(tuple(shape), dtype=self.rate.dtype, device=self.rate.device).exponential_()
        return draws / self.rate

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - ember.exp(-self.rate * value)

    def icdf(self, value: Any) -> Any:
        return -ember.log1p(-value) / self.rate

    def entropy(self) -> Any:
        return 1.0 - ember.log(self.rate)

    @property
    def _natural_params(self) -> tuple[Any]:
        return (-self.rate,)

    def _log_normalizer(self, x: Any) -> Any:
        return -ember.log(-x)
