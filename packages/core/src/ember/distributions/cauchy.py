"""The Cauchy (Lorentz) distribution."""

from __future__ import annotations

import math
from typing import Any

import ember

from . import constraints
from .distribution import Distribution

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """Cauchy distribution: the ratio of two independent standard normals, shifted by ``loc`` and
    scaled by ``scale``. Its mean is undefined and its variance infinite.

    Example::

        >>> Cauchy(ember.tensor(0.0), ember.tensor(1.0)).cdf(ember.tensor(1.0))
        tensor(0.7500)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        batch_shape = self._set_broadcast_params(loc=loc, scale=scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Cauchy:
        return self._expand_params(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Any:
        return ember.full(self._extended_shape(), float("nan"), dtype=self.loc.dtype, device=self.loc.device)

    @property
    def mode(self) -> Any:
        return self.loc

    @property
    def variance(self) -> Any:
        return ember.full(self._extended_shape(), float("inf"), dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        u = ember.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + ember.tan(math.pi * (u - 0.5)) * self.scale

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return ember.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: Any) -> Any:
        return ember.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> Any:
        return math.log(4 * math.pi) + self.scale.log()
