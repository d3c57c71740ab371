"""The Dirichlet distribution on the probability simplex."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class _DirichletDraw(ember.autograd.Function):
    """Dirichlet draws with implicit reparameterisation gradients."""

    @staticmethod
    def forward(ctx: Any, concentration: Any) -> Any:
        x = ember._sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, keepdim=True).expand_as(concentration)
        # d x_j / d alpha_i = g_i (delta_ij - x_j): moving alpha_i changes x_i by g_i (1 - x_i) and
        # rescales the other coordinates proportionally, staying on the simplex.
        g = ember._dirichlet_grad(x, concentration, total)
        return g * (grad_output - (x * grad_output).sum(-1, keepdim=True))


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution over the simplex, with positive ``concentration`` along the last
    dimension: density proportional to ``prod_k x_k^(alpha_k - 1)``.

    Example::

        >>> Dirichlet(ember.tensor([1.0, 3.0])).mean
        tensor([0.2500, 0.7500])
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Any, validate_args: Any = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = ember.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        return _DirichletDraw.apply(self.concentration.expand(shape))

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return ember.xlogy(c - 1.0, value).sum(-1) + ember.lgamma(c.sum(-1)) - ember.lgamma(c).sum(-1)

    @property
    def mean(self) -> Any:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Any:
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, keepdim=True)
        corner = (self.concentration < 1).all(dim=-1, keepdim=True)
        n = cm1.shape[-1]
        onehot = ember.eye(n, dtype=mode.dtype, device=mode.device)[self.concentration.argmax(-1)]
        return ember.where(corner, onehot, mode)

    @property
    def variance(self) -> Any:
        c = self.concentration
        c0 = c.sum(-1, keepdim=True)
        return c * (c0 - c) / (c0.pow(2) * (c0 + 1))

    def entropy(self) -> Any:
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        return (ember.lgamma(c).sum(-1) - ember.lgamma(a0) - (k - a0) * ember.digamma(a0)
                - ((c - 1.0) * ember.digamma(c)).sum(-1))

    @property
    def _natural_params(self) -> tuple[Any]:
        return (self.concentration,)

    def _log_normalizer(self, x: Any) -> Any:
        return x.lgamma().sum(-1) - ember.lgamma(x.sum(-1))
