"""The log-normal distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._delegate import _delegated_property
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """Distribution of ``exp(X)`` for ``X ~ Normal(loc, scale)``.

    Example::

        >>> LogNormal(ember.tensor(0.0), ember.tensor(1.0)).mode
        tensor(0.3679)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogNormal:
        return self._expand_subclass(LogNormal, batch_shape, _instance)

    loc = _delegated_property("base_dist", "loc", "Mean of the underlying normal.")

    scale = _delegated_property("base_dist", "scale", "Standard deviation of the underlying normal.")

    @property
    def mean(self) -> Any:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Any:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Any:
        s2 = self.scale.pow(2)
        return ember.expm1(s2) * (2 * self.loc + s2).exp()

    def entropy(self) -> Any:
        return self.base_dist.entropy() + self.loc
