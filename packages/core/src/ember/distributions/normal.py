"""The normal (Gaussian) distribution."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

import ember

from . import constraints
from ._location import _MeanModeAtLoc
from .exp_family import ExponentialFamily
from .utils import _standard_normal

__all__ = ["Normal"]


class Normal(_MeanModeAtLoc, ExponentialFamily):
    """Normal distribution with mean ``loc`` and standard deviation ``scale``.

    Density ``exp(-(x - loc)^2 / (2 scale^2)) / (scale sqrt(2 pi))``; sampling is
    reparameterised as ``loc + scale * eps`` with standard normal ``eps``.

    Example::

        >>> d = Normal(ember.tensor([0.0]), ember.tensor([1.0]))
        >>> d.log_prob(ember.tensor([0.0]))
        tensor([-0.9189])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def stddev(self) -> Any:
        return self.scale

    @property
    def variance(self) -> Any:
        return self.stddev.pow(2)

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        batch_shape = self._set_broadcast_params(loc=loc, scale=scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Normal:
        return self._expand_params(Normal, batch_shape, _instance, ("loc", "scale"))

    def sample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = math.log(self.scale) if isinstance(self.scale, Number) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ember.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value: Any) -> Any:
        return self.loc + self.scale * ember.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Any:
        return 0.5 + 0.5 * math.log(2 * math.pi) + ember.log(self.scale)

    @property
    def _natural_params(self) -> tuple[Any, Any]:
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        return -0.25 * x.pow(2) / y + 0.5 * ember.log(-math.pi / y)
