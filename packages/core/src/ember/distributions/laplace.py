"""The Laplace (double exponential) distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._location import _MeanModeAtLoc
from .distribution import Distribution

__all__ = ["Laplace"]


class Laplace(_MeanModeAtLoc, Distribution):
    """Laplace distribution with density ``exp(-|x - loc| / scale) / (2 scale)``.

    Example::

        >>> Laplace(ember.tensor(0.0), ember.tensor(1.0)).variance
        tensor(2.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def variance(self) -> Any:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Any:
        return 2**0.5 * self.scale

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        batch_shape = self._set_broadcast_params(loc=loc, scale=scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Laplace:
        return self._expand_params(Laplace, batch_shape, _instance, ("loc", "scale"))

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        eps = ember.finfo(self.loc.dtype).eps
        u = ember.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * u.sign() * ember.log1p(-u.abs())

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return -ember.log(2 * self.scale) - ember.abs(value - self.loc) / self.scale

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * ember.expm1(-z.abs() / self.scale)

    def icdf(self, value: Any) -> Any:
        t = value - 0.5
        return self.loc - self.scale * t.sign() * ember.log1p(-2 * t.abs())

    def entropy(self) -> Any:
        return 1 + ember.log(2 * self.scale)


