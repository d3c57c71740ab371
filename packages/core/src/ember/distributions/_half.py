"""What the half-normal and half-Cauchy distributions share: the law of ``|X|`` for ``X`` from a
law symmetric about zero with a ``scale``."""

from __future__ import annotations

import math
from typing import Any

import ember

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__: list[str] = []


class _HalfOfSymmetric(TransformedDistribution):
    """Base of the laws of ``|X|`` for ``X ~ _base_law(0, scale)``, a law symmetric about zero."""

    _base_law: Any
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Any, validate_args: Any = None) -> None:
        super().__init__(self._base_law(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    @property
    def mode(self) -> Any:
        return ember.zeros_like(self.scale)

    def _fold_log_prob(self, value: Any) -> Any:
        """The log-density at ``value``: twice the base one at nonnegative values, else zero."""
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return ember.where(value >= 0, log_prob, ember.full_like(log_prob, float("-inf")))

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Any) -> Any:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Any:
        return self.base_dist.entropy() - math.log(2)
