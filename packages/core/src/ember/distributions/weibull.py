"""The Weibull distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all, euler_constant

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """Weibull distribution with CDF ``1 - exp(-(x / scale)^concentration)`` on ``x >= 0``:
    ``scale * E^(1 / concentration)`` for a unit exponential ``E``.

    Example::

        >>> Weibull(ember.tensor(1.0), ember.tensor(1.0)).mean
        tensor(1.)
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any, validate_args: Any = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(ember.ones_like(self.scale), validate_args=validate_args)
        parts = [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, parts, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Weibull:
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base = self.base_dist.expand(batch_shape)
        parts = [PowerTransform(exponent=new.concentration_reciprocal), AffineTransform(loc=0, scale=new.scale)]
        super(Weibull, new).__init__(base, parts, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        return self.scale * ember.exp(ember.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self) -> Any:
        c = self.concentration
        return self.scale * ((c - 1) / c) ** c.reciprocal()

    @property
    def variance(self) -> Any:
        r = self.concentration_reciprocal
        return self.scale.pow(2) * (ember.exp(ember.lgamma(1 + 2 * r)) - ember.exp(2 * ember.lgamma(1 + r)))

    def entropy(self) -> Any:
        r = self.concentration_reciprocal
        return euler_constant * (1 - r) + ember.log(self.scale * r) + 1
