"""The Gumbel (type-I extreme value) distribution."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

import ember

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """Gumbel distribution with CDF ``exp(-exp(-(x - loc) / scale))``: the limit law of maxima.
    Built as ``loc - scale * log(-log U)`` for uniform ``U``.

    Example::

        >>> Gumbel(ember.tensor(0.0), ember.tensor(1.0)).mode
        tensor(0.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        info = ember.finfo(self.loc.dtype)
        if isinstance(loc, Number) and isinstance(scale, Number):
            base = Uniform(info.tiny, 1 - info.eps, validate_args=validate_args)
        else:
            base = Uniform(ember.full_like(self.loc, info.tiny), ember.full_like(self.loc, 1 - info.eps),
                           validate_args=validate_args)
        parts = [ExpTransform().inv, AffineTransform(loc=0, scale=-ember.ones_like(self.scale)), ExpTransform().inv,
                 AffineTransform(loc=self.loc, scale=-self.scale)]
        super().__init__(base, parts, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gumbel:
        return self._expand_subclass(Gumbel, batch_shape, _instance, ("loc", "scale"))

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self) -> Any:
        return self.loc + self.scale * euler_constant

    @property
    def mode(self) -> Any:
        return self.loc

    @property
    def stddev(self) -> Any:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Any:
        return self.stddev.pow(2)

    def entropy(self) -> Any:
        return self.scale.log() + (1 + euler_constant)
