"""The Pareto (type I) distribution."""

from __future__ import annotations

from typing import Any

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Pareto distribution with density ``alpha scale^alpha / x^(alpha + 1)`` on ``x >= scale``:
    ``scale * exp(E)`` for an exponential ``E`` of rate ``alpha``.

    Example::

        >>> Pareto(ember.tensor(1.0), ember.tensor(2.0)).mean
        tensor(2.)
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: Any = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        parts = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, parts, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Pareto:
        return self._expand_subclass(Pareto, batch_shape, _instance, ("scale", "alpha"))

    @property
    def mean(self) -> Any:
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Any:
        return self.scale

    @property
    def variance(self) -> Any:
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.greater_than_eq(self.scale)

    def entropy(self) -> Any:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
