"""The multivariate normal distribution."""

from __future__ import annotations

import math
from typing import Any

import ember

from . import constraints
from ._location import _MeanModeAtLoc
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(mat: Any, vec: Any) -> Any:
    """Matrix-vector product with broadcasting over batch dimensions."""
    return ember.matmul(mat, vec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(tril: Any, x: Any) -> Any:
    """``x^T (L L^T)^{-1} x`` for lower-triangular ``L``, broadcast over batch dimensions."""
    batch = ember.broadcast_shapes(tril.shape[:-2], x.shape[:-1])
    n = x.shape[-1]
    tril = tril.expand(tuple(batch) + (n, n))
    x = x.expand(tuple(batch) + (n,))
    y = ember.linalg.solve_triangular(tril, x.unsqueeze(-1), upper=False).squeeze(-1)
    return y.pow(2).sum(-1)


def _precision_to_scale_tril(p: Any) -> Any:
    """A lower-triangular ``L`` with ``L L^T = P^{-1}``.

    With the reversal permutation ``J``, ``chol(J P J) = Lf`` gives ``P = U U^T`` for the upper
    triangular ``U = J Lf J``; then ``P^{-1} = (U^{-T})(U^{-T})^T`` and ``U^{-T}`` is lower
    triangular.
    """
    lf = ember.linalg.cholesky(ember.flip(p, (-2, -1)))
    ut = ember.flip(lf, (-2, -1)).mT  # U^T, lower triangular
    eye = ember.eye(p.shape[-1], dtype=p.dtype, device=p.device)
    return ember.linalg.solve_triangular(ut, eye.expand_as(ut), upper=False)


class MultivariateNormal(_MeanModeAtLoc, Distribution):
    """Multivariate normal distribution with mean vector ``loc`` and a covariance given by
    exactly one of ``covariance_matrix``, ``precision_matrix`` (its inverse) or ``scale_tril``
    (its lower Cholesky factor, the cheapest). Leading dimensions are batch dimensions.

    Example::

        >>> d = MultivariateNormal(ember.zeros(2), ember.eye(2))
        >>> d.log_prob(ember.zeros(2))
        tensor(-1.8379)
    """

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Any, covariance_matrix: Any = None, precision_matrix: Any = None,
                 scale_tril: Any = None, validate_args: Any = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        for name, m in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                        ("precision_matrix", precision_matrix)):
            if m is None:
                continue
            if m.dim() < 2:
                raise ValueError(f"{name} matrix must be at least two-dimensional, with optional leading batch "
                                 "dimensions")
            batch_shape = ember.broadcast_shapes(m.shape[:-2], loc.shape[:-1])
            setattr(self, name, m.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = ember.Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self) -> Any:
        """Lower Cholesky factor of the covariance."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Any:
        """The covariance matrix."""
        low = self._unbroadcasted_scale_tril
        return ember.matmul(low, low.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Any:
        """The inverse of the covariance matrix."""
        return ember.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def variance(self) -> Any:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - half_log_det

    def entropy(self) -> Any:
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
