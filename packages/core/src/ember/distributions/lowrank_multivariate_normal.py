"""The multivariate normal distribution with low-rank plus diagonal covariance."""

from __future__ import annotations

import math
from typing import Any

import ember

from . import constraints
from ._location import _MeanModeAtLoc
from .distribution import Distribution
from .multivariate_normal import _batch_mv
from .utils import _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _capacitance_tril(w: Any, d: Any) -> Any:
    """Cholesky factor of the capacitance matrix ``I + W^T D^{-1} W``."""
    m = w.size(-1)
    wt_dinv = w.mT / d.unsqueeze(-2)
    k = ember.matmul(wt_dinv, w) + ember.eye(m, dtype=w.dtype, device=w.device)
    return ember.linalg.cholesky(k)


def _lowrank_logdet(w: Any, d: Any, cap_tril: Any) -> Any:
    """``log det(W W^T + D)`` by the matrix determinant lemma."""
    return 2 * cap_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + d.log().sum(-1)


def _lowrank_mahalanobis(w: Any, d: Any, x: Any, cap_tril: Any) -> Any:
    """``x^T (W W^T + D)^{-1} x`` by the Woodbury identity."""
    wt_dinv = w.mT / d.unsqueeze(-2)
    wt_dinv_x = _batch_mv(wt_dinv, x)
    term1 = (x.pow(2) / d).sum(-1)
    batch = ember.broadcast_shapes(cap_tril.shape[:-2], wt_dinv_x.shape[:-1])
    m = cap_tril.shape[-1]
    rhs = wt_dinv_x.expand(tuple(batch) + (m,)).unsqueeze(-1)
    lhs = cap_tril.expand(tuple(batch) + (m, m))
    term2 = ember.linalg.solve_triangular(lhs, rhs, upper=False).squeeze(-1).pow(2).sum(-1)
    return term1 - term2


class LowRankMultivariateNormal(_MeanModeAtLoc, Distribution):
    """Multivariate normal with covariance ``cov_factor @ cov_factor.T + diag(cov_diag)``.

    With ``cov_factor`` of shape ``(n, m)`` and ``m`` much smaller than ``n`` the determinant and
    inverse come from the ``m x m`` capacitance matrix (determinant lemma and Woodbury identity).

    Example::

        >>> d = LowRankMultivariateNormal(ember.zeros(2), ember.ones(2, 1), ember.ones(2))
        >>> d.covariance_matrix
        tensor([[2., 1.],
                [1., 2.]])
    """

    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Any, cov_factor: Any, cov_diag: Any, validate_args: Any = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != tuple(event_shape):
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != tuple(event_shape):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        loc_, cov_diag_ = loc.unsqueeze(-1), cov_diag.unsqueeze(-1)
        try:
            loc_, self.cov_factor, cov_diag_ = ember.broadcast_tensors(loc_, cov_factor, cov_diag_)
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                             f"cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        batch_shape = self.loc.shape[:-1]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LowRankMultivariateNormal:
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = ember.Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + self.cov_factor.shape[-1:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        super(LowRankMultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def variance(self) -> Any:
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (w.pow(2).sum(-1) + d).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self) -> Any:
        """Lower Cholesky factor of the covariance."""
        return ember.linalg.cholesky(self.covariance_matrix)

    @lazy_property
    def covariance_matrix(self) -> Any:
        """The covariance matrix ``W W^T + diag(D)``."""
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        cov = ember.matmul(w, w.mT) + ember.diag_embed(d)
        return cov.expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Any:
        """The inverse covariance, by the Woodbury identity."""
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        wt_dinv = w.mT / d.unsqueeze(-2)
        a = ember.linalg.solve_triangular(self._capacitance_tril, wt_dinv, upper=False)
        prec = ember.diag_embed(d.reciprocal()) - ember.matmul(a.mT, a)
        return prec.expand(self._matrix_shape())

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        w_shape = tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:])
        eps_w = _standard_normal(w_shape, dtype=self.loc.dtype, device=self.loc.device)
        eps_d = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_w)
                + self._unbroadcasted_cov_diag.sqrt() * eps_d)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        m = _lowrank_mahalanobis(w, d, diff, self._capacitance_tril)
        log_det = _lowrank_logdet(w, d, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + m)

    def entropy(self) -> Any:
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        log_det = _lowrank_logdet(w, d, self._capacitance_tril)
        h = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
