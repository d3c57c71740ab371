"""The half-normal distribution."""

from __future__ import annotations

import math
from typing import Any

from ._delegate import _delegated_property
from ._half import _HalfOfSymmetric
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(_HalfOfSymmetric):
    """Distribution of ``|X|`` for ``X ~ Normal(0, scale)``.

    Example::

        >>> HalfNormal(ember.tensor(1.0)).log_prob(ember.tensor(0.0))
        tensor(-0.2258)
    """

    _base_law = Normal

    def expand(self, batch_shape: Any, _instance: Any = None) -> HalfNormal:
        return self._expand_subclass(HalfNormal, batch_shape, _instance)

    scale = _delegated_property("base_dist", "scale", "Scale of the underlying normal.")

    @property
    def mean(self) -> Any:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Any:
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return self._fold_log_prob(value)
