"""The Kumaraswamy distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moment(a: Any, b: Any, n: int) -> Any:
    """E[X^n] = b B(1 + n / a, b)."""
    t = 1 + n / a
    return b * ember.exp(ember.lgamma(t) + ember.lgamma(b) - ember.lgamma(t + b))


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy distribution on [0, 1] with density ``a b x^(a-1) (1 - x^a)^(b-1)`` where
    ``a = concentration1`` and ``b = concentration0``; a beta-like law with a closed-form CDF.

    Example::

        >>> Kumaraswamy(ember.tensor(1.0), ember.tensor(1.0)).mean
        tensor(0.5000)
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Any = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(ember.full_like(self.concentration0, 0), ember.full_like(self.concentration0, 1),
                       validate_args=validate_args)
        parts = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                 PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, parts, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Kumaraswamy:
        return self._expand_subclass(Kumaraswamy, batch_shape, _instance, ("concentration1", "concentration0"))

    @property
    def mean(self) -> Any:
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Any:
        a, b = self.concentration1, self.concentration0
        log_mode = (ember.log(a - 1) - ember.log(a * b - 1)) / a
        log_mode = ember.where((a < 1) | (b < 1), ember.full_like(log_mode, float("nan")), log_mode)
        return log_mode.exp()

    @property
    def variance(self) -> Any:
        a, b = self.concentration1, self.concentration0
        return _moment(a, b, 2) - _moment(a, b, 1).pow(2)

    def entropy(self) -> Any:
        a, b = self.concentration1, self.concentration0
        harmonic_b = ember.digamma(b + 1) + euler_constant
        return (1 - 1 / b) + (1 - 1 / a) * harmonic_b - ember.log(a) - ember.log(b)
