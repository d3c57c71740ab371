"""Transforms acting on whole vectors or matrices, on shapes, or built from other transforms
(concatenated or stacked slices, a distribution's CDF)."""

from __future__ import annotations

import math
from typing import Any

import ember

from . import constraints
from .transforms import Transform, _softplus
from .utils import _sum_rightmost, tril_matrix_to_vec, vec_to_tril_matrix


def _pad_last(x: Any, before: int, after: int, value: float) -> Any:
    """Pad the last dimension of ``x`` with ``before``/``after`` entries equal to ``value``."""
    parts = []
    if before:
        parts.append(ember.full(tuple(x.shape[:-1]) + (before,), value, dtype=x.dtype, device=x.device))
    parts.append(x)
    if after:
        parts.append(ember.full(tuple(x.shape[:-1]) + (after,), value, dtype=x.dtype, device=x.device))
    return ember.cat(parts, -1)


class SoftmaxTransform(Transform):
    """Map real vectors onto the simplex by exponentiating and normalising. Not a bijection (it
    ignores a common shift), so it has no log-determinant; its inverse is the elementwise log."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        e = (x - x.max(-1, keepdim=True)[0]).exp()
        return e / e.sum(-1, keepdim=True)

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def forward_shape(self, shape: Any) -> Any:
        """Unchanged; needs at least one dimension."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """Unchanged; needs at least one dimension."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """Bijection from ``R^(K-1)`` onto the ``K``-simplex by stick breaking: each coordinate
    takes a sigmoid fraction of what remains of the unit stick. The shifts by ``log(K - k)``
    send the origin to the uniform vector."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _shift(x: Any) -> Any:
        k = x.shape[-1]
        return ember.arange(k, 0, -1, dtype=x.dtype, device=x.device).log()

    def _call(self, x: Any) -> Any:
        z = ember.sigmoid(x - self._shift(x))
        remaining = (1 - z).cumprod(-1)
        return _pad_last(z, 0, 1, 1.0) * _pad_last(remaining, 1, 0, 1.0)

    def _inverse(self, y: Any) -> Any:
        head = y[..., :-1]
        rest = (1 - head.cumsum(-1)).clamp(min=ember.finfo(y.dtype).tiny)
        return head.log() - rest.log() + self._shift(head)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``sum_k log y_k + log(1 - z_k)`` over the broken pieces ``z``."""
        u = x - self._shift(x)
        return (-_softplus(u) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Any) -> Any:
        """One more entry in the last dimension."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape: Any) -> Any:
        """One fewer entry in the last dimension."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Square matrix -> lower-triangular matrix with positive diagonal: keep the strict lower
    triangle and exponentiate the diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Any) -> Any:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Square matrix -> positive definite matrix ``L L^T`` with ``L`` from
    :class:`LowerCholeskyTransform`."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        low = LowerCholeskyTransform()(x)
        return low @ low.mT

    def _inverse(self, y: Any) -> Any:
        return LowerCholeskyTransform().inv(ember.linalg.cholesky(y))


class CorrCholeskyTransform(Transform):
    """Bijection from a real vector of length ``D(D-1)/2`` onto Cholesky factors of ``D x D``
    correlation matrices.

    The vector fills the strict lower triangle (row by row) after ``tanh``; each row is then
    completed by stick breaking on squared lengths so that it has unit norm and a positive
    diagonal entry.
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        eps = ember.finfo(x.dtype).eps
        t = x.tanh().clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(t, diag=-1)
        left = (1 - r**2).sqrt().cumprod(-1)
        r = r + ember.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * _pad_last(left[..., :-1], 1, 0, 1.0)

    def _inverse(self, y: Any) -> Any:
        left = 1 - (y * y).cumsum(-1)
        left = _pad_last(left[..., :-1], 1, 0, 1.0)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (ember.log1p(t) - ember.log1p(-t)) / 2

    def log_abs_det_jacobian(self, x: Any, y: Any, intermediates: Any = None) -> Any:
        """Stick-breaking part ``0.5 * sum log(1 - partial row norms)`` plus the tanh part."""
        left = 1 - (y * y).cumsum(-1)
        stick = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh = -2 * (x + _softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick + tanh

    def forward_shape(self, shape: Any) -> Any:
        """``(..., N)`` -> ``(..., D, D)`` with ``N = D(D-1)/2``."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattend lower-diagonal number")
        return tuple(shape[:-1]) + (d, d)

    def inverse_shape(self, shape: Any) -> Any:
        """``(..., D, D)`` -> ``(..., D(D-1)/2)``."""
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return tuple(shape[:-2]) + (d * (d - 1) // 2,)


class ReshapeTransform(Transform):
    """Reshape the right-most ``in_shape`` dimensions into ``out_shape`` (same number of elements);
    the Jacobian is a permutation, so the log-determinant is zero."""

    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape = ember.Size(in_shape)
        self.out_shape = ember.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same reshape with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Any) -> Any:
        batch = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(batch + tuple(self.out_shape))

    def _inverse(self, y: Any) -> Any:
        batch = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(batch + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """Zeros of the batch shape."""
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    def forward_shape(self, shape: Any) -> Any:
        """The batch part of ``shape`` followed by ``out_shape``."""
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape: Any) -> Any:
        """The batch part of ``shape`` followed by ``in_shape``."""
        return self._swap(shape, self.out_shape, self.in_shape)

    @staticmethod
    def _swap(shape: Any, old: Any, new: Any) -> Any:
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(old)}")
        return tuple(shape[:cut]) + tuple(new)


class CatTransform(Transform):
    """Apply ``tseq[i]`` to the ``i``-th slice (of ``lengths[i]`` entries) along ``dim`` and
    concatenate the results, like ``ember.cat``."""

    def __init__(self, tseq: Any, dim: int = 0, lengths: Any = None, cache_size: int = 0) -> None:
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError("tseq and lengths must have the same length")
        self.dim = dim

    @property
    def event_dim(self) -> int:
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same concatenation with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, x: Any) -> Any:
        if not -x.dim() <= self.dim < x.dim():
            raise ValueError("dim out of range")
        if x.size(self.dim) != self.length:
            raise ValueError("size of the concatenated dimension does not match the lengths")
        start = 0
        for t, n in zip(self.transforms, self.lengths):
            yield t, start, n
            start += n

    def _call(self, x: Any) -> Any:
        return ember.cat([t(x.narrow(self.dim, s, n)) for t, s, n in self._slices(x)], self.dim)

    def _inverse(self, y: Any) -> Any:
        return ember.cat([t.inv(y.narrow(self.dim, s, n)) for t, s, n in self._slices(y)], self.dim)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """Each part's log-determinant, concatenated along ``dim`` when it is a batch dimension,
        summed otherwise."""
        terms = []
        for t, s, n in self._slices(x):
            term = t.log_abs_det_jacobian(x.narrow(self.dim, s, n), y.narrow(self.dim, s, n))
            if t.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - t.event_dim)
            terms.append(term)
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim = dim + self.event_dim
        if dim < 0:
            return ember.cat(terms, dim)
        return sum(terms)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Apply ``tseq[i]`` to the ``i``-th entry along ``dim`` and stack the results, like
    ``ember.stack``."""

    def __init__(self, tseq: Any, dim: int = 0, cache_size: int = 0) -> None:
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same stack with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z: Any) -> Any:
        if z.size(self.dim) != len(self.transforms):
            raise ValueError("size of the stacked dimension does not match the number of transforms")
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x: Any) -> Any:
        return ember.stack([t(v) for t, v in zip(self.transforms, self._slices(x))], self.dim)

    def _inverse(self, y: Any) -> Any:
        return ember.stack([t.inv(v) for t, v in zip(self.transforms, self._slices(y))], self.dim)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """Each part's log-determinant, stacked along ``dim``."""
        parts = zip(self.transforms, self._slices(x), self._slices(y))
        return ember.stack([t.log_abs_det_jacobian(a, b) for t, a, b in parts], self.dim)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = F(x)`` for the CDF ``F`` of a univariate distribution: maps its support onto the unit
    interval, and the log-determinant is the log-density."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> Any:  # type: ignore[override]
        return self.distribution.support

    def _call(self, x: Any) -> Any:
        return self.distribution.cdf(x)

    def _inverse(self, y: Any) -> Any:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """The log-density of the distribution at ``x``."""
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same CDF map with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
