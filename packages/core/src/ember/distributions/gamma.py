"""The gamma distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma distribution with shape ``concentration`` and inverse scale ``rate``: density
    ``rate^a x^(a-1) exp(-rate x) / Gamma(a)`` on ``x >= 0``. Sampling is reparameterised
    (implicit gradients of the standard gamma draws).

    Example::

        >>> Gamma(ember.tensor(2.0), ember.tensor(4.0)).mean
        tensor(0.5000)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self) -> Any:
        return self.concentration / self.rate

    @property
    def mode(self) -> Any:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Any:
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration: Any, rate: Any, validate_args: Any = None) -> None:
        batch_shape = self._set_broadcast_params(concentration=concentration, rate=rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        return self._expand_params(Gamma, batch_shape, _instance, ("concentration", "rate"))

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        value = ember._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        tiny = ember.finfo(value.dtype).tiny
        return value + (value.detach().clamp(min=tiny) - value.detach())

    def log_prob(self, value: Any) -> Any:
        value = ember.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        c, r = self.concentration, self.rate
        return ember.xlogy(c, r) + ember.xlogy(c - 1, value) - r * value - ember.lgamma(c)

    def entropy(self) -> Any:
        c = self.concentration
        return c - ember.log(self.rate) + ember.lgamma(c) + (1.0 - c) * ember.digamma(c)

    @property
    def _natural_params(self) -> tuple[Any, Any]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        return ember.lgamma(x + 1) + (x + 1) * ember.log(-y.reciprocal())

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return ember.special.gammainc(self.concentration, self.rate * value)
