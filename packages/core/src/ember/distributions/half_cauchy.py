"""The half-Cauchy distribution."""

from __future__ import annotations

import math
from typing import Any

import ember

from ._delegate import _delegated_property
from ._half import _HalfOfSymmetric
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(_HalfOfSymmetric):
    """Distribution of ``|X|`` for ``X ~ Cauchy(0, scale)``.

    Example::

        >>> HalfCauchy(ember.tensor(1.0)).cdf(ember.tensor(1.0))
        tensor(0.5000)
    """

    _base_law = Cauchy

    def expand(self, batch_shape: Any, _instance: Any = None) -> HalfCauchy:
        return self._expand_subclass(HalfCauchy, batch_shape, _instance)

    scale = _delegated_property("base_dist", "scale", "Scale of the underlying Cauchy distribution.")

    @property
    def mean(self) -> Any:
        return ember.full(self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self) -> Any:
        return self.base_dist.variance

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        value = ember.as_tensor(value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device)
        return self._fold_log_prob(value)
