"""Student's t distribution."""

from __future__ import annotations

import math
from typing import Any

import ember

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and scale
    ``scale``: ``loc + scale * Z / sqrt(V / df)`` with standard normal ``Z`` and ``V ~ Chi2(df)``.

    Example::

        >>> StudentT(ember.tensor(3.0)).variance
        tensor(3.)
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self) -> Any:
        m = self.loc.clone()
        return ember.where(self.df <= 1, ember.full_like(m, float("nan")), m)

    @property
    def mode(self) -> Any:
        return self.loc

    @property
    def variance(self) -> Any:
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        out = ember.where(df > 2, finite, ember.full_like(finite, float("inf")))
        return ember.where(df <= 1, ember.full_like(finite, float("nan")), out)

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: Any = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        return self._expand_params(StudentT, batch_shape, _instance, ("df", "loc", "scale", "_chi2"))

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        z = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        v = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * z * ember.rsqrt(v / self.df)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        df = self.df
        y = (value - self.loc) / self.scale
        norm = (self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi) + ember.lgamma(0.5 * df)
                - ember.lgamma(0.5 * (df + 1.0)))
        return -0.5 * (df + 1.0) * ember.log1p(y**2.0 / df) - norm

    def entropy(self) -> Any:
        df = self.df
        lbeta = ember.lgamma(0.5 * df) + math.lgamma(0.5) - ember.lgamma(0.5 * (df + 1))
        return (self.scale.log() + 0.5 * (df + 1) * (ember.digamma(0.5 * (df + 1)) - ember.digamma(0.5 * df))
                + 0.5 * df.log() + lbeta)
