"""The beta distribution on the unit interval."""

from __future__ import annotations

from numbers import Real
from typing import Any

import ember

from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Beta distribution with density proportional to ``x^(a-1) (1-x)^(b-1)`` on [0, 1], where
    ``a = concentration1`` and ``b = concentration0``. It is the first coordinate of a
    two-category Dirichlet, which provides sampling (reparameterised) and the density.

    Example::

        >>> Beta(ember.tensor(2.0), ember.tensor(2.0)).mean
        tensor(0.5000)
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Any = None) -> None:
        if isinstance(concentration1, Real) and isinstance(concentration0, Real):
            both = ember.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = ember.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Beta:
        return self._expand_params(Beta, batch_shape, _instance, ("_dirichlet",))

    @property
    def mean(self) -> Any:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Any:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Any:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> Any:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(ember.stack([value, 1.0 - value], -1))

    def entropy(self) -> Any:
        return self._dirichlet.entropy()

    @property
    def concentration1(self) -> Any:
        """The first shape parameter (exponent of ``x``)."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Any:
        """The second shape parameter (exponent of ``1 - x``)."""
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self) -> tuple[Any, Any]:
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        return ember.lgamma(x) + ember.lgamma(y) - ember.lgamma(x + y)
