"""The generalized Pareto distribution."""

from __future__ import annotations

import math
from typing import Any

import ember

from . import constraints
from .distribution import Distribution

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalized Pareto distribution with location ``loc``, scale ``scale`` and shape
    ``concentration`` (``xi``): CDF ``1 - (1 + xi z)^(-1 / xi)`` with ``z = (x - loc) / scale``
    (``1 - exp(-z)`` when ``xi = 0``). The support is bounded above by ``loc - scale / xi`` when
    ``xi < 0``.

    Example::

        >>> GeneralizedPareto(ember.tensor(0.0), ember.tensor(1.0), ember.tensor(0.0)).mean
        tensor(1.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any, validate_args: Any = None) -> None:
        batch_shape = self._set_broadcast_params(loc=loc, scale=scale, concentration=concentration)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> GeneralizedPareto:
        return self._expand_params(GeneralizedPareto, batch_shape, _instance, ("loc", "scale", "concentration"))

    def _safe_xi(self) -> Any:
        xi = self.concentration
        return ember.where(xi == 0, ember.ones_like(xi), xi)

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        u = ember.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        xi = self.concentration
        safe = self._safe_xi()
        inner = (safe * z).clamp(min=-1.0)
        general = -(1 + 1 / safe) * ember.log1p(inner)
        log_prob = ember.where(xi == 0, -z, general) - self.scale.log()
        inside = (z >= 0) & ((xi >= 0) | (z <= -1 / safe))
        return ember.where(inside, log_prob, ember.full_like(log_prob, float("-inf")))

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        z = ((value - self.loc) / self.scale).clamp(min=0)
        xi = self.concentration
        safe = self._safe_xi()
        general = -ember.expm1(-ember.log1p((safe * z).clamp(min=-1.0)) / safe)
        return ember.where(xi == 0, -ember.expm1(-z), general)

    def icdf(self, value: Any) -> Any:
        xi = self.concentration
        safe = self._safe_xi()
        log_tail = ember.log1p(-value)
        z = ember.where(xi == 0, -log_tail, ember.expm1(-safe * log_tail) / safe)
        return self.loc + self.scale * z

    @property
    def mean(self) -> Any:
        xi = self.concentration
        mean = self.loc + self.scale / (1 - xi)
        return ember.where(xi < 1, mean, ember.full_like(mean, math.inf))

    @property
    def variance(self) -> Any:
        xi = self.concentration
        var = self.scale.pow(2) / ((1 - xi).pow(2) * (1 - 2 * xi))
        return ember.where(xi < 0.5, var, ember.full_like(var, math.inf))

    @property
    def mode(self) -> Any:
        return self.loc

    def entropy(self) -> Any:
        return ember.log(self.scale) + self.concentration + 1

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        upper = ember.where(self.concentration < 0, self.loc - self.scale / self.concentration,
                            ember.full_like(self.loc, math.inf))
        return constraints.interval(self.loc, upper)
