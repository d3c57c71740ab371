"""The inverse-gamma distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._delegate import _delegated_property
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """Distribution of ``1 / X`` for ``X ~ Gamma(concentration, rate)``: density
    ``rate^a x^(-a-1) exp(-rate / x) / Gamma(a)``.

    Example::

        >>> InverseGamma(ember.tensor(3.0), ember.tensor(4.0)).mean
        tensor(2.)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: Any = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -ember.ones_like(base.rate)
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> InverseGamma:
        return self._expand_subclass(InverseGamma, batch_shape, _instance)

    concentration = _delegated_property("base_dist", "concentration", "Shape of the underlying gamma distribution.")

    rate = _delegated_property("base_dist", "rate", "Rate of the underlying gamma distribution.")

    @property
    def mean(self) -> Any:
        result = self.rate / (self.concentration - 1)
        return ember.where(self.concentration > 1, result, ember.full_like(result, float("inf")))

    @property
    def mode(self) -> Any:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Any:
        c = self.concentration
        result = self.rate.square() / ((c - 1).square() * (c - 2))
        return ember.where(c > 2, result, ember.full_like(result, float("inf")))

    def entropy(self) -> Any:
        c = self.concentration
        return c + self.rate.log() + ember.lgamma(c) - (1 + c) * ember.digamma(c)
