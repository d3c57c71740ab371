"""The Fisher-Snedecor (F) distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from .distribution import Distribution
from .gamma import Gamma

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """Fisher-Snedecor (F) distribution with ``df1`` and ``df2`` degrees of freedom: the ratio
    ``(X1 / df1) / (X2 / df2)`` of scaled independent chi-squared variables.

    Example::

        >>> FisherSnedecor(ember.tensor(3.0), ember.tensor(6.0)).mean
        tensor(1.5000)
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Any, df2: Any, validate_args: Any = None) -> None:
        batch_shape = self._set_broadcast_params(df1=df1, df2=df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> FisherSnedecor:
        return self._expand_params(FisherSnedecor, batch_shape, _instance, ("df1", "df2", "_gamma1", "_gamma2"))

    @property
    def mean(self) -> Any:
        df2 = ember.where(self.df2 <= 2, ember.full_like(self.df2, float("nan")), self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self) -> Any:
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return ember.where(self.df1 <= 2, ember.full_like(mode, float("nan")), mode)

    @property
    def variance(self) -> Any:
        df1 = self.df1
        df2 = ember.where(self.df2 <= 4, ember.full_like(self.df2, float("nan")), self.df2)
        return 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = ember.finfo(x2.dtype).tiny
        return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        t1 = ember.lgamma(a + b) - ember.lgamma(a) - ember.lgamma(b)
        t2 = a * ratio.log() + (a - 1) * ember.log(value)
        t3 = (a + b) * ember.log1p(ratio * value)
        return t1 + t2 - t3
