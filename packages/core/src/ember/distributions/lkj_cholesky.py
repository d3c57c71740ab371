"""The LKJ distribution over Cholesky factors of correlation matrices."""

from __future__ import annotations

import math
from typing import Any

import ember

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJ distribution for lower Cholesky factors ``L`` of ``dim x dim`` correlation matrices:
    the correlation matrix ``L L^T`` has density proportional to ``det(L L^T)^(concentration - 1)``.

    Sampling uses the onion method: row ``k`` of ``L`` is ``sqrt(y_k)`` times a uniform unit
    vector in ``k`` dimensions, with ``y_k`` beta distributed, and the diagonal entry completes
    the row to unit norm.

    Example::

        >>> LKJCholesky(3, ember.tensor(1.0)).event_shape
        torch.Size([3, 3])
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0, validate_args: Any = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = ember.Size((dim, dim))
        self._beta = self._make_beta(self.concentration)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def _make_beta(self, concentration: Any) -> Beta:
        # row k (k = 1 .. dim-1) has squared off-diagonal norm y_k ~ Beta(k / 2, eta + (dim - 1 - k) / 2);
        # row 0 has no off-diagonal entries (its draw is unused).
        dtype, device = concentration.dtype, concentration.device
        k = ember.arange(self.dim, dtype=dtype, device=device)
        conc1 = 0.5 * k.clamp(min=1)
        conc0 = concentration.unsqueeze(-1) + 0.5 * (self.dim - 1 - k.clamp(min=1))
        return Beta(conc1.expand_as(conc0), conc0)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LKJCholesky:
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = ember.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = new._make_beta(new.concentration)
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = ()) -> Any:
        with ember.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            shape = self._extended_shape(sample_shape)
            u = ember.randn(tuple(shape), dtype=y.dtype, device=y.device).tril(-1)
            norms = u.norm(dim=-1, keepdim=True)
            u = u / ember.where(norms == 0, ember.ones_like(norms), norms)
            w = ember.sqrt(y) * u
            tiny = ember.finfo(w.dtype).tiny
            diag = ember.clamp(1 - (w**2).sum(-1), min=tiny).sqrt()
            return w + ember.diag_embed(diag)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        rows = ember.arange(2, self.dim + 1, dtype=value.dtype, device=value.device)
        exponents = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - rows
        unnormalized = (exponents * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        log_norm = (dm1 * ember.lgamma(alpha) - ember.mvlgamma(alpha - 0.5, dm1)
                    - 0.5 * dm1 * math.log(math.pi))
        return unnormalized + log_norm
