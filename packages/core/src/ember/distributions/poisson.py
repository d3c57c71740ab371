"""The Poisson distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson distribution: counts with mass ``rate^k exp(-rate) / k!``.

    Example::

        >>> Poisson(ember.tensor(2.0)).log_prob(ember.tensor(0.0))
        tensor(-2.)
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self) -> Any:
        return self.rate

    @property
    def mode(self) -> Any:
        return self.rate.floor()

    @property
    def variance(self) -> Any:
        return self.rate

    def __init__(self, rate: Any, validate_args: Any = None) -> None:
        batch_shape = self._set_broadcast_params(rate=rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Poisson:
        return self._expand_params(Poisson, batch_shape, _instance, ("rate",))

    def sample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.poisson(self.rate.expand(shape))

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> tuple[Any]:
        return (ember.log(self.rate),)

    def _log_normalizer(self, x: Any) -> Any:
        return ember.exp(x)
