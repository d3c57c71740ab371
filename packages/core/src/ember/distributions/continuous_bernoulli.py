"""The continuous Bernoulli distribution."""

from __future__ import annotations

import math
from typing import Any

import ember

from . import constraints
from ._probs_logits import _ParamTensor, _ProbsOrLogits
from .exp_family import ExponentialFamily
from .utils import _bce_with_logits, broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(_ProbsOrLogits, _ParamTensor, ExponentialFamily):
    """Continuous Bernoulli distribution on [0, 1] with density ``C(p) p^x (1 - p)^(1 - x)``.

    ``C(p) = 2 atanh(1 - 2p) / (1 - 2p)`` normalises the density; near ``p = 1/2`` (inside
    ``lims``) its Taylor expansion is used instead, for stability. Parametrised by ``probs`` or
    ``logits``.

    Example::

        >>> ContinuousBernoulli(probs=ember.tensor(0.5)).mean
        tensor(0.5000)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None, lims: tuple[float, float] = (0.499, 0.501),
                 validate_args: Any = None) -> None:
        batch_shape = self._set_probs_or_logits(probs, logits)
        if probs is not None:
            self.probs = self._param = clamp_probs(self.probs)
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ContinuousBernoulli:
        return self._expand_probs_or_logits(ContinuousBernoulli, batch_shape, _instance, shared=("_lims",))

    def _outside_unstable_region(self) -> Any:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Any:
        return ember.where(self._outside_unstable_region(), self.probs,
                           self._lims[0] * ember.ones_like(self.probs))

    def _cont_bern_log_norm(self) -> Any:
        """log C(p), with a Taylor expansion around p = 1/2."""
        cut = self._cut_probs()
        below = ember.where(cut <= 0.5, cut, ember.zeros_like(cut))
        above = ember.where(cut >= 0.5, cut, ember.ones_like(cut))
        exact = ember.log(ember.abs(ember.log1p(-cut) - ember.log(cut))) - ember.where(
            cut <= 0.5, ember.log1p(-2.0 * below), ember.log(2.0 * above - 1.0))
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return ember.where(self._outside_unstable_region(), exact, taylor)

    @property
    def mean(self) -> Any:
        cut = self._cut_probs()
        exact = cut / (2.0 * cut - 1.0) + 1.0 / (ember.log1p(-cut) - ember.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return ember.where(self._outside_unstable_region(), exact, taylor)

    @property
    def stddev(self) -> Any:
        return ember.sqrt(self.variance)

    @property
    def variance(self) -> Any:
        cut = self._cut_probs()
        exact = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + 1.0 / (ember.log1p(-cut) - ember.log(cut)).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return ember.where(self._outside_unstable_region(), exact, taylor)

    @lazy_property
    def logits(self) -> Any:
        """Log-odds parameter."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Any:
        """Shape parameter in (0, 1)."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def sample(self, sample_shape: Any = ()) -> Any:
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        u = ember.rand(tuple(shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value) + self._cont_bern_log_norm()

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = ember.where(self._outside_unstable_region(), cdfs, value)
        return ember.where(value <= 0.0, ember.zeros_like(value),
                           ember.where(value >= 1.0, ember.ones_like(value), unbounded))

    def icdf(self, value: Any) -> Any:
        cut = self._cut_probs()
        exact = (ember.log1p(-cut + value * (2.0 * cut - 1.0)) - ember.log1p(-cut)) / (ember.log(cut)
                                                                                       - ember.log1p(-cut))
        return ember.where(self._outside_unstable_region(), exact, value)

    def entropy(self) -> Any:
        log_p0 = ember.log1p(-self.probs)
        log_p1 = ember.log(self.probs)
        return self.mean * (log_p0 - log_p1) - self._cont_bern_log_norm() - log_p0

    @property
    def _natural_params(self) -> tuple[Any]:
        return (self.logits,)

    def _log_normalizer(self, x: Any) -> Any:
        """log of the normaliser as a function of the natural parameter (the logits)."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = ember.where(outside, x, (self._lims[0] - 0.5) * ember.ones_like(x))
        exact = ember.log(ember.abs(ember.expm1(cut))) - ember.log(ember.abs(cut))
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return ember.where(outside, exact, taylor)
