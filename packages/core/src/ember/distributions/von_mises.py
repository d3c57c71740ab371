"""The von Mises (circular normal) distribution."""

from __future__ import annotations

import math
from typing import Any

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["VonMises"]


def _log_i0(k: Any) -> Any:
    """log I_0(k) for k >= 0, through the exponentially scaled Bessel function."""
    return ember.log(ember.special.i0e(k)) + k


def _rejection_sample(loc: Any, concentration: Any, shape: Any) -> Any:
    """Best and Fisher's (1979) wrapped-Cauchy envelope rejection sampler, vectorised.

    Runs in float64 and keeps drawing for the entries not yet accepted.
    """
    k = concentration.double().expand(shape).reshape(-1)
    tau = 1 + ember.sqrt(1 + 4 * k**2)
    rho = (tau - ember.sqrt(2 * tau)) / (2 * k)
    r = ember.where(k < 1e-5, 1 / k.clamp(min=1e-300), (1 + rho**2) / (2 * rho))
    out = ember.zeros_like(k)
    todo = ember.ones_like(k, dtype=ember.bool)
    while bool(todo.any()):
        idx = todo.nonzero().squeeze(-1)
        ki, ri = k[idx], r[idx]
        u1, u2, u3 = (ember.rand(idx.shape, dtype=ember.float64) for _ in range(3))
        z = ember.cos(math.pi * u1)
        f = (1 + ri * z) / (ri + z)
        c = ki * (ri - f)
        ok = ((c * (2 - c) - u2) > 0) | ((ember.log(c / u2) + 1 - c) >= 0)
        theta = ember.sign(u3 - 0.5) * ember.acos(f.clamp(-1, 1))
        out[idx[ok]] = theta[ok]
        todo[idx[ok]] = False
    out = out.reshape(tuple(shape))
    angle = out + loc.double()
    return (ember.remainder(angle + math.pi, 2 * math.pi) - math.pi).to(loc.dtype)


class VonMises(Distribution):
    """Von Mises distribution on the circle, with density ``exp(k cos(x - loc)) / (2 pi I_0(k))``
    where ``k = concentration``. Values are angles in ``[-pi, pi)``.

    Example::

        >>> VonMises(ember.tensor(0.0), ember.tensor(1.0)).mode
        tensor(0.)
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any, validate_args: Any = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * ember.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_i0(self.concentration)

    def sample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return _rejection_sample(self.loc, self.concentration, shape)

    def expand(self, batch_shape: Any, _instance: Any = None) -> VonMises:
        return self._expand_params(VonMises, batch_shape, _instance, ("loc", "concentration"))

    @property
    def mean(self) -> Any:
        """The circular mean (``loc``)."""
        return self.loc

    @property
    def mode(self) -> Any:
        return self.loc

    @property
    def variance(self) -> Any:
        """The circular variance ``1 - I_1(k) / I_0(k)``."""
        k = self.concentration
        return 1 - ember.special.i1e(k) / ember.special.i0e(k)
