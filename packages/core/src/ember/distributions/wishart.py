"""The Wishart distribution over positive definite matrices."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

import ember

from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import _standard_normal, lazy_property

__all__ = ["Wishart"]


def _mvdigamma(x: Any, p: int) -> Any:
    """The multivariate digamma ``sum_{i=0}^{p-1} digamma(x - i / 2)``."""
    offsets = ember.arange(p, dtype=x.dtype, device=x.device) / 2
    return ember.digamma(x.unsqueeze(-1) - offsets).sum(-1)


class Wishart(ExponentialFamily):
    """Wishart distribution over ``p x p`` positive definite matrices: the law of ``X X^T`` for
    ``df`` independent columns ``X_i ~ N(0, V)``. The scale matrix ``V`` is given by exactly
    one of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``; ``df`` must exceed
    ``p - 1``. Sampling uses the Bartlett decomposition.

    Example::

        >>> Wishart(ember.tensor(3.0), covariance_matrix=ember.eye(2)).mean
        tensor([[3., 0.],
                [0., 3.]])
    """

    arg_constraints = {"covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky,
                       "df": constraints.greater_than(0)}
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, df: Any, covariance_matrix: Any = None, precision_matrix: Any = None, scale_tril: Any = None,
                 validate_args: Any = None) -> None:
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix), ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, Number):
            batch_shape = param.shape[:-2]
            self.df = ember.tensor(float(df), dtype=param.dtype, device=param.device)
        else:
            batch_shape = ember.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if bool((self.df <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        setattr(self, name, param.expand(tuple(batch_shape) + (-1, -1)))
        self.arg_constraints = dict(self.arg_constraints, df=constraints.greater_than(p - 1))
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._make_chi2(self.df)

    def _make_chi2(self, df: Any) -> Chi2:
        p = self._event_shape[-1]
        offsets = ember.arange(p, dtype=df.dtype, device=df.device).expand(tuple(self._batch_shape) + (-1,))
        return Chi2(df=df.unsqueeze(-1) - offsets)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Wishart:
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = ember.Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new.arg_constraints = self.arg_constraints
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._dist_chi2 = new._make_chi2(new.df)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self) -> Any:
        """Lower Cholesky factor of the scale matrix."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Any:
        """The scale matrix ``V``."""
        low = self._unbroadcasted_scale_tril
        return (low @ low.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Any:
        """The inverse of the scale matrix."""
        return ember.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    def _df_matrix(self, x: Any) -> Any:
        return x.view(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self) -> Any:
        return self._df_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self) -> Any:
        factor = self.df - self._event_shape[-1] - 1
        factor = ember.where(factor <= 0, ember.full_like(factor, float("nan")), factor)
        return self._df_matrix(factor) * self.covariance_matrix

    @property
    def variance(self) -> Any:
        v = self.covariance_matrix
        d = v.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix(self.df) * (v.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def rsample(self, sample_shape: Any = ()) -> Any:
        sample_shape = ember.Size(sample_shape)
        p = self._event_shape[-1]
        shape = self._extended_shape(sample_shape)
        diag = self._dist_chi2.rsample(sample_shape).sqrt()
        rows, cols = ember.tril_indices(p, p, -1)
        lower = _standard_normal(tuple(shape[:-2]) + (rows.numel(),), dtype=diag.dtype, device=diag.device)
        off = lower.new_zeros(tuple(shape))
        off[..., rows, cols] = lower
        bartlett = ember.diag_embed(diag) + off
        chol = self._unbroadcasted_scale_tril @ bartlett
        return chol @ chol.mT

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        low = self._unbroadcasted_scale_tril
        log_det_v = 2 * low.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = ember.cholesky_solve(value, low).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (-nu * (p * math.log(2) / 2 + log_det_v / 2) - ember.mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * ember.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self) -> Any:
        nu = self.df
        p = self._event_shape[-1]
        low = self._unbroadcasted_scale_tril
        log_det_v = 2 * low.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) / 2 * log_det_v + p * (p + 1) / 2 * math.log(2) + ember.mvlgamma(nu / 2, p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self) -> tuple[Any, Any]:
        p = self._event_shape[-1]
        return -0.5 * self.precision_matrix, 0.5 * (self.df - p - 1)

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        p = self._event_shape[-1]
        half_n = y + (p + 1) / 2
        return half_n * (-ember.linalg.slogdet(-2 * x).logabsdet + p * math.log(2)) + ember.mvlgamma(half_n, p)
