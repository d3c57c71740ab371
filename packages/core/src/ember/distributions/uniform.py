"""The continuous uniform distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from .distribution import Distribution

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform distribution on the half-open interval ``[low, high)``.

    Example::

        >>> Uniform(ember.tensor(0.0), ember.tensor(4.0)).variance
        tensor(1.3333)
    """

    has_rsample = True

    @property
    def arg_constraints(self) -> dict[str, Any]:  # type: ignore[override]
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @property
    def mean(self) -> Any:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Any:
        return float("nan") * self.high

    @property
    def stddev(self) -> Any:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Any:
        return (self.high - self.low).pow(2) / 12

    def __init__(self, low: Any, high: Any, validate_args: Any = None) -> None:
        batch_shape = self._set_broadcast_params(low=low, high=high)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Uniform:
        return self._expand_params(Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        u = ember.rand(tuple(shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low <= value).type_as(self.low) * (self.high > value).type_as(self.low)
        return ember.log(inside) - ember.log(self.high - self.low)

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Any) -> Any:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Any:
        return ember.log(self.high - self.low)
